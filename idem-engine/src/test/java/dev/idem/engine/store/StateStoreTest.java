package dev.idem.engine.store;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class StateStoreTest {

  @TempDir Path dir;

  /**
   * Checkpoints write much to {@code seen} and little to the journal; the journal's memtable must
   * not keep every write-ahead log file alive, since a resume after a crash replays them all. Also
   * checks that what was written is all still there after reopening.
   */
  @Test
  void theWriteAheadLogStaysNearItsCapWhileCheckpointsGoOn() throws IOException {
    long journaled = 0;
    long written = 0;
    SplittableRandom random = new SplittableRandom(7);
    try (StateStore store = StateStore.open(dir, 8 << 20, false)) {
      for (long sequence = 1; written < 4 * StateStore.MAX_WAL_BYTES; sequence++) {
        PendingKeys seen = new PendingKeys();
        for (int i = 0; i < 32_768; i++) {
          seen.add(random.nextLong(), random.nextLong(), null);
        }
        PendingKeys journal = new PendingKeys();
        journal.add(sequence, sequence, null);
        try (StateStore.Commit commit = store.commit()) {
          commit.seen(seen).journal(sequence, journal).write(false);
        }
        written += 16L * seen.size();
        journaled++;
      }
    }
    long walBytes;
    try (var files = Files.list(dir)) {
      walBytes =
          files
              .filter(p -> p.getFileName().toString().endsWith(".log"))
              .mapToLong(p -> p.toFile().length())
              .sum();
    }
    assertThat(walBytes)
        .as("write-ahead log after %,d bytes of keys", written)
        .isLessThan(3 * StateStore.MAX_WAL_BYTES);
    try (StateStore store = StateStore.open(dir, 8 << 20, false)) {
      long[] n = new long[1];
      store.forEachJournaled(1, Long.MAX_VALUE, (hi, lo, key) -> n[0]++);
      assertThat(n[0]).isEqualTo(journaled);
    }
  }
}
