package dev.idem.engine.records;

import java.nio.charset.StandardCharsets;
import java.util.SplittableRandom;

/** Batches for tests outside this package, whose constructor and filling are package-private. */
public final class RecordBatchFixture {

  private RecordBatchFixture() {}

  /** A batch of {@code n} usable records with distinct random fingerprints. */
  public static RecordBatch of(int n) {
    RecordBatch b = new RecordBatch();
    SplittableRandom random = new SplittableRandom(n);
    for (int i = 0; i < n; i++) {
      byte[] line = ("record " + i).getBytes(StandardCharsets.UTF_8);
      b.add(RecordBatch.OK, line, 0, line.length, 0, 0, i + 1, 0);
      b.fingerprints[2 * i] = random.nextLong();
      b.fingerprints[2 * i + 1] = random.nextLong();
    }
    return b;
  }
}
