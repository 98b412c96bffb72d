package dev.idem.engine.corpus;

import dev.idem.core.filter.BlockedBloomFilter;
import dev.idem.core.filter.MembershipFilter;
import dev.idem.core.filter.ScalableBloomFilter;
import dev.idem.core.filter.StripedFingerprintSet;
import dev.idem.engine.JobException;
import dev.idem.engine.input.InputFile;
import dev.idem.engine.records.RecordBatch;
import dev.idem.engine.records.RecordSource;
import java.io.IOException;
import java.io.InputStream;
import java.util.List;
import java.util.Locale;

/**
 * The evaluation sets of a decontamination, read before the corpus into the set of their n-grams,
 * cut as the corpus's are; the set is read only from then on. A record of an evaluation set that
 * cannot be read stops the job, naming its file and line: an evaluation set is not the place to
 * skip what is unreadable.
 */
final class EvaluationSets {

  /**
   * What was read.
   *
   * @param set the n-grams
   * @param grams n-grams read, repeats included
   */
  record Read(MembershipFilter set, long grams) {}

  private EvaluationSets() {}

  /**
   * The evaluation sets a decontamination reads ({@code --against}); none for the other modes.
   *
   * @throws JobException when {@code --against} finds none, or names a stream
   */
  static List<InputFile> files(CorpusSpec spec) throws IOException {
    if (spec.mode() != CorpusSpec.Mode.DECONTAMINATE) {
      return List.of();
    }
    List<InputFile> files = InputFile.expand(spec.against());
    if (files.isEmpty()) {
      throw new JobException("--against " + spec.against() + ": no evaluation set found there");
    }
    InputFile.requireFiles(files, "the evaluation sets (--against) are read first");
    return files;
  }

  /**
   * Reads the evaluation sets' n-grams into an exact set, or a Bloom filter at {@code --fpp} (sized
   * for {@code --expected} n-grams and refused when they hold more; else one that grows).
   */
  static Read read(
      CorpusSpec spec, List<InputFile> files, RecordSource.Settings settings, InputStream stdin)
      throws IOException {
    long againstGrams = 0;
    MembershipFilter set;
    if (spec.fpp() == 0) {
      set = StripedFingerprintSet.forRecords(1 << 20);
    } else if (spec.expected() > 0) {
      set = BlockedBloomFilter.create(spec.expected(), spec.fpp());
    } else {
      set =
          ScalableBloomFilter.builder()
              .initialCapacity(1 << 20)
              .falsePositiveRate(spec.fpp())
              .build();
    }
    DocumentParser parser = new DocumentParser(spec, spec.againstContent().path(), null, null);
    ParsedDocument d = new ParsedDocument();
    try (RecordSource source = new RecordSource(files, settings, stdin, 0, 0, 0)) {
      while (true) {
        RecordBatch batch = source.next();
        for (int i = 0; i < batch.count; i++) {
          if (batch.kind[i] == RecordBatch.BLANK) {
            continue;
          }
          String problem =
              batch.kind[i] == RecordBatch.OK
                  ? parser.text(batch.arena, batch.start[i], batch.contentLength[i], d)
                  : batch.problem[i];
          if (problem != null) {
            throw new JobException(
                "evaluation set "
                    + files.get(batch.fileIndex[i]).path()
                    + ":"
                    + batch.line[i]
                    + ": "
                    + problem);
          }
          againstGrams += parser.addGrams(d.text, true, set);
        }
        boolean end = batch.endOfInput;
        source.recycle(batch);
        if (end) {
          break;
        }
      }
    }
    if (set instanceof BlockedBloomFilter b && b.expectedFpp() > spec.fpp()) {
      throw new JobException(
          String.format(
              Locale.ROOT,
              "the evaluation sets hold %,d n-grams, more than the %,d --expected sizes the filter"
                  + " for: its false-positive rate would be %.3g, above --fpp %s. Give --expected of"
                  + " at least %,d, or leave it out (a filter that grows)",
              b.approximateCount(),
              b.capacity(),
              b.expectedFpp(),
              spec.fpp(),
              2 * b.approximateCount()));
    }
    return new Read(set, againstGrams);
  }
}
