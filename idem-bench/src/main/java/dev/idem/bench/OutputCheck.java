package dev.idem.bench;

import dev.idem.engine.records.LineReader;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.BitSet;

/**
 * Compares a dedup output with the reference (the distinct keys in first-occurrence order, key
 * numbers 0, 1, 2, ...): keys missing, keys written more than once, and whether the order is the
 * reference's. Holds one bit per distinct key, not the keys.
 */
record OutputCheck(long lines, long missed, long duplicated, long unknown, boolean inOrder) {

  static OutputCheck of(E2eData.Shape shape, Path output, long distinct) throws IOException {
    BitSet seen = new BitSet((int) distinct);
    long lines = 0;
    long duplicated = 0;
    long unknown = 0;
    boolean inOrder = true;
    if (Files.exists(output)) {
      try (InputStream in = Files.newInputStream(output);
          LineReader r = new LineReader(in, output.toString())) {
        while (r.next()) {
          long c = E2eData.keyNumber(shape, r.bytes(), r.offset(), r.length());
          if (c < 0 || c >= distinct) {
            unknown++;
            inOrder = false;
          } else if (seen.get((int) c)) {
            duplicated++;
            inOrder = false;
          } else {
            inOrder &= c == lines;
            seen.set((int) c);
          }
          lines++;
        }
      }
    }
    return new OutputCheck(lines, distinct - seen.cardinality(), duplicated, unknown, inOrder);
  }

  boolean exact() {
    return missed == 0 && duplicated == 0 && unknown == 0;
  }
}
