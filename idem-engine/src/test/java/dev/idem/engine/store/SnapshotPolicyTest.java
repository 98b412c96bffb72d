package dev.idem.engine.store;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;
import org.junit.jupiter.api.Test;

/**
 * The snapshot policy of an exact set alone, run over whole histories of checkpoints: the journal a
 * resume would replay stays bounded in keys however long the history, the first snapshot is full, a
 * delta is written only over a base, and the deltas over one base stay few.
 */
class SnapshotPolicyTest {

  /** One simulated job: what is on disk, and what a resume would replay. */
  private static final class History {
    long baseKeys;
    long deltaKeys;
    int deltaLevels;
    int mostDeltaLevels;
    long journaledSinceSnapshot;
    long fullWrites;
    long deltaWrites;
    long keysWritten;
    long longestTail;

    void checkpoint(long kept) {
      journaledSinceSnapshot += kept;
      long size = baseKeys + deltaKeys + journaledSinceSnapshot;
      SnapshotPolicy.Write w =
          SnapshotPolicy.forSetAlone(
              journaledSinceSnapshot, 16 * size, baseKeys, deltaKeys, deltaLevels);
      switch (w) {
        case FULL -> {
          baseKeys = size;
          deltaKeys = 0;
          deltaLevels = 0;
          journaledSinceSnapshot = 0;
          fullWrites++;
          keysWritten += size;
        }
        case DELTA -> {
          assertThat(baseKeys).as("a delta needs a base").isPositive();
          deltaKeys += journaledSinceSnapshot;
          keysWritten += journaledSinceSnapshot;
          deltaLevels++;
          journaledSinceSnapshot = 0;
          deltaWrites++;
        }
        case NONE -> {}
      }
      longestTail = Math.max(longestTail, journaledSinceSnapshot);
      mostDeltaLevels = Math.max(mostDeltaLevels, deltaLevels);
    }
  }

  @Property(tries = 200)
  void theJournalAResumeReplaysStaysBoundedWhateverTheHistory(
      @ForAll @Size(min = 1, max = 400) List<@IntRange(min = 0, max = 400_000) Integer> kept,
      @ForAll @IntRange(min = 1, max = 40) int repeat) {
    History h = new History();
    for (int r = 0; r < repeat; r++) {
      for (int k : kept) {
        h.checkpoint(k);
      }
    }
    // below the gate after every checkpoint that wrote nothing, and 0 after one that did
    assertThat(h.longestTail)
        .isLessThan(SnapshotPolicy.MAX_TAIL_SNAPSHOTS * SnapshotPolicy.snapshotKeys());
    assertThat(h.mostDeltaLevels).isLessThanOrEqualTo(SnapshotPolicy.MAX_DELTA_LEVELS);
    if (h.baseKeys > 0) {
      assertThat(h.fullWrites).isPositive();
      // the deltas never outgrow the base by more than one tail's keys
      assertThat(h.deltaKeys)
          .isLessThanOrEqualTo(
              h.baseKeys + SnapshotPolicy.MAX_TAIL_SNAPSHOTS * SnapshotPolicy.snapshotKeys());
    }
  }

  @Test
  void aLongHistoryWritesDeltasAndKeepsTheTailShort() {
    History h = new History();
    for (int c = 0; c < 5_000; c++) {
      h.checkpoint(100_000); // 500 M keys in checkpoints of 100 k
    }
    assertThat(h.deltaWrites).isGreaterThan(h.fullWrites);
    assertThat(h.longestTail)
        .isLessThan(SnapshotPolicy.MAX_TAIL_SNAPSHOTS * SnapshotPolicy.snapshotKeys());
    // deltas are written once and a new base comes after 16 of them or a doubling: the snapshots
    // hold each key a few times over the run, not once per checkpoint
    assertThat(h.fullWrites).isLessThan(60);
    assertThat(h.keysWritten).isLessThan(8 * h.baseKeys + 8 * h.deltaKeys);
  }

  @Test
  void theFirstSnapshotIsFullAndNothingIsDueBeforeTheGate() {
    long keys = SnapshotPolicy.snapshotKeys();
    assertThat(SnapshotPolicy.forSetAlone(0, 1 << 30, 0, 0, 0))
        .isEqualTo(SnapshotPolicy.Write.NONE);
    assertThat(SnapshotPolicy.forSetAlone(keys, 1L << 40, 0, 5, 0))
        .isEqualTo(SnapshotPolicy.Write.FULL);
    assertThat(SnapshotPolicy.forSetAlone(keys, 1L << 40, 100_000_000, 1_000_000, 1))
        .isEqualTo(SnapshotPolicy.Write.DELTA);
    assertThat(SnapshotPolicy.forSetAlone(keys - 1, 1L << 40, 100_000_000, 1_000_000, 1))
        .isEqualTo(SnapshotPolicy.Write.NONE);
    // as many keys since the base as the base holds, or as many deltas as a resume probes: a new
    // base
    assertThat(SnapshotPolicy.forSetAlone(4 * keys, 1L << 40, 100_000_000, 99_000_000, 3))
        .isEqualTo(SnapshotPolicy.Write.FULL);
    assertThat(
            SnapshotPolicy.forSetAlone(
                keys, 1L << 40, 100_000_000, 1_000_000, SnapshotPolicy.MAX_DELTA_LEVELS))
        .isEqualTo(SnapshotPolicy.Write.FULL);
  }
}
