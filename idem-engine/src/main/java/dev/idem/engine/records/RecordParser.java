package dev.idem.engine.records;

/**
 * Turns a record's bytes in a batch into what the judge needs: blank or not, the key's fingerprint
 * (and its bytes in full-key mode), the event time; or the reason the record has none. One per
 * thread, since extractors reuse buffers; the reading thread has one, and each parsing thread of a
 * source with {@link RecordSource.Settings#parsers} above one has its own copy.
 */
final class RecordParser {

  private final RecordSource.Settings settings;
  private final KeyExtractor extractor;
  private final KeyExtractor timeExtractor;
  private final KeyBuffer key = new KeyBuffer();
  private final KeyBuffer timeText = new KeyBuffer();

  /**
   * @param copy whether to work on copies of the settings' extractors (a thread other than the
   *     reading thread, after the header configured them)
   */
  RecordParser(RecordSource.Settings settings, boolean copy) {
    this.settings = settings;
    this.extractor = copy ? settings.extractor().copy() : settings.extractor();
    this.timeExtractor =
        settings.time() == null
            ? null
            : copy ? settings.time().extractor().copy() : settings.time().extractor();
  }

  /** Parses every usable record of {@code batch}. */
  void parseAll(RecordBatch batch) {
    for (int i = 0; i < batch.count; i++) {
      if (batch.kind[i] == RecordBatch.OK) {
        parse(batch, i);
      }
    }
  }

  /** Parses record {@code i}, a usable record so far: it stays one, or becomes blank or bad. */
  void parse(RecordBatch batch, int i) {
    byte[] bytes = batch.arena;
    int offset = batch.start[i];
    int length = batch.contentLength[i];
    if (settings.format() == RecordFormat.JSONL && isBlank(bytes, offset, length)) {
      batch.kind[i] = RecordBatch.BLANK;
      return;
    }
    String problem = extractor.extract(bytes, offset, length, key);
    if (problem == null) {
      try {
        settings
            .fingerprinter()
            .fingerprintInto(key.bytes(), 0, key.length(), batch.fingerprints, i);
        if (settings.fullKeys()) {
          batch.keys[i] =
              settings.fingerprinter().normalizer().normalize(key.bytes(), 0, key.length());
          if (batch.keys[i] == key.bytes()) {
            batch.keys[i] = key.copy();
          }
        }
      } catch (IllegalArgumentException e) {
        problem = e.getMessage();
      }
    }
    if (problem == null && timeExtractor != null) {
      problem = readTime(bytes, offset, length, i, batch);
    }
    if (problem != null) {
      batch.kind[i] = RecordBatch.BAD;
      batch.problem[i] = problem;
    }
  }

  /** Puts record {@code i}'s event time into the batch; null, or why it has none. */
  private String readTime(byte[] bytes, int offset, int length, int i, RecordBatch batch) {
    String problem = timeExtractor.extract(bytes, offset, length, timeText);
    if (problem != null) {
      return "event time: " + problem;
    }
    try {
      batch.eventTime[i] = settings.time().format().parse(timeText.bytes(), 0, timeText.length());
      return null;
    } catch (IllegalArgumentException e) {
      return e.getMessage();
    }
  }

  private static boolean isBlank(byte[] b, int offset, int length) {
    for (int i = offset; i < offset + length; i++) {
      if (b[i] != ' ' && b[i] != '\t' && b[i] != '\r') {
        return false;
      }
    }
    return true;
  }
}
