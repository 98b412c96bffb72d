package dev.idem.engine.records;

import java.io.IOException;
import java.io.InputStream;
import java.util.List;

/**
 * Guesses how many records the inputs hold, when the user did not say how many distinct keys to
 * expect: the mean record size of the first megabyte of the first input, against the total size
 * (gzip taken as 5:1). Distinct keys are at most the records, so this sizes the filter's first
 * layer and chooses where the exact tier lives; a scalable filter absorbs an underestimate.
 */
public final class InputEstimate {

  private static final int SAMPLE_BYTES = 1 << 20;
  private static final long UNKNOWN = 10_000_000;
  private static final int GZIP_RATIO = 5;

  private InputEstimate() {}

  public static long distinctKeysUpperBound(List<InputFile> inputs, RecordFormat format)
      throws IOException {
    InputFile first = inputs.stream().filter(f -> !f.isStdin()).findFirst().orElse(null);
    if (first == null) {
      return UNKNOWN;
    }
    long sampled;
    long lines = 0;
    try (InputStream in = Inputs.open(first.path(), InputStream.nullInputStream())) {
      byte[] sample = in.readNBytes(SAMPLE_BYTES);
      sampled = sample.length;
      for (byte b : sample) {
        lines += b == '\n' ? 1 : 0;
      }
    }
    if (sampled == 0) {
      return 1024;
    }
    double meanRecordBytes = (double) sampled / Math.max(1, lines);
    double total = 0;
    for (InputFile f : inputs) {
      total +=
          f.isStdin()
              ? UNKNOWN * meanRecordBytes
              : f.size() * (f.path().endsWith(".gz") ? GZIP_RATIO : 1);
    }
    return Math.max(1024, (long) Math.ceil(total / meanRecordBytes));
  }
}
