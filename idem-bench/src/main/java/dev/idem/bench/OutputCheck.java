package dev.idem.bench;

import dev.idem.engine.records.LineReader;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.BitSet;

/**
 * Compares a dedup output with the reference (the distinct keys in first-occurrence order, key
 * numbers 0, 1, 2, ...): keys missing, keys written more than once, lines that are not byte for
 * byte the first occurrence's line (altered; stray bytes: a {@code \r} or a missing last newline,
 * which the line reader hides), and whether the order is the reference's. Holds one bit per
 * distinct key, not the keys (and, for a byte check of JSONL, the record number of each key's first
 * occurrence).
 */
record OutputCheck(
    long lines,
    long missed,
    long duplicated,
    long unknown,
    long altered,
    long strayBytes,
    boolean inOrder) {

  /** Keys only: a line counts as its key's, whatever its other bytes. */
  static OutputCheck of(E2eData.Shape shape, Path output, long distinct) throws IOException {
    return of(shape, output, distinct, null);
  }

  /**
   * Keys, and every line byte for byte: a URL line must be its key's line (the line is a function
   * of the key); a JSONL line must be its key's first occurrence, record {@code firstRecord[key]},
   * when {@code firstRecord} is given (not checked when it is null).
   */
  static OutputCheck of(E2eData.Shape shape, Path output, long distinct, int[] firstRecord)
      throws IOException {
    BitSet seen = new BitSet((int) distinct);
    long lines = 0;
    long duplicated = 0;
    long unknown = 0;
    long altered = 0;
    long lineBytes = 0;
    boolean inOrder = true;
    boolean bytes = shape == E2eData.Shape.URL_LINES || firstRecord != null;
    byte[] expected = new byte[256];
    if (Files.exists(output)) {
      try (InputStream in = Files.newInputStream(output);
          LineReader r = new LineReader(in, output.toString())) {
        while (r.next()) {
          long c = E2eData.keyNumber(shape, r.bytes(), r.offset(), r.length());
          if (c < 0 || c >= distinct) {
            unknown++;
            inOrder = false;
          } else {
            if (bytes && !same(shape, expected, c, firstRecord, r)) {
              altered++;
            }
            if (seen.get((int) c)) {
              duplicated++;
              inOrder = false;
            } else {
              inOrder &= c == lines;
              seen.set((int) c);
            }
          }
          lines++;
          lineBytes += r.length() + 1;
        }
      }
    }
    long stray = bytes && Files.exists(output) ? Files.size(output) - lineBytes : 0;
    return new OutputCheck(
        lines, distinct - seen.cardinality(), duplicated, unknown, altered, stray, inOrder);
  }

  /** Whether the line just read is the input's line for key {@code c} (newline excluded). */
  private static boolean same(
      E2eData.Shape shape, byte[] expected, long c, int[] firstRecord, LineReader r) {
    long seq = firstRecord == null ? 0 : firstRecord[(int) c];
    int len = E2eData.line(shape, expected, c, seq) - 1;
    return Arrays.equals(expected, 0, len, r.bytes(), r.offset(), r.offset() + r.length());
  }

  boolean exact() {
    return missed == 0 && duplicated == 0 && unknown == 0 && altered == 0 && strayBytes == 0;
  }
}
