package dev.idem.engine.records;

/**
 * Finds the key inside one record's bytes, without building an object tree. One instance per
 * reading thread: implementations reuse buffers.
 */
public interface KeyExtractor {

  /**
   * Puts the key of {@code record[offset, offset + length)} into {@code out}.
   *
   * @return {@code null} on success, else why the record has no usable key (the message names the
   *     problem, e.g. "malformed JSON: …" or "no field /meta/url"; the caller adds file and line)
   */
  String extract(byte[] record, int offset, int length, KeyBuffer out);

  /**
   * Called with each input file's header line before its records, for formats with a header.
   *
   * @return {@code null}, or why the header is unusable (a missing column is a usage error, not a
   *     bad record)
   */
  default String header(byte[] line, int offset, int length) {
    return null;
  }

  /**
   * An extractor that works as this one does now (after its {@link #header}), for another thread:
   * the copy and this one share no buffers. Stateless extractors return themselves.
   */
  default KeyExtractor copy() {
    return this;
  }

  /** The extractor for a key spec and format. */
  static KeyExtractor of(KeySpec spec, RecordFormat format) {
    if (spec instanceof KeySpec.WholeLine) {
      return (record, offset, length, out) -> {
        out.set(record, offset, length);
        return null;
      };
    }
    if (spec instanceof KeySpec.JsonField f) {
      if (format != RecordFormat.JSONL) {
        throw new IllegalArgumentException(
            "a JSON field key needs --format jsonl, not " + format.displayName());
      }
      return new JsonKeyExtractor(f);
    }
    KeySpec.Column c = (KeySpec.Column) spec;
    if (format != RecordFormat.CSV && format != RecordFormat.TSV) {
      throw new IllegalArgumentException(
          "a column key needs --format csv or tsv, not " + format.displayName());
    }
    return new DelimitedKeyExtractor(c, format == RecordFormat.CSV);
  }
}
