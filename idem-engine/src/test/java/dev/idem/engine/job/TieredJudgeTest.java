package dev.idem.engine.job;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idem.core.filter.BlockedBloomFilter;
import dev.idem.engine.Deduplicator;
import dev.idem.engine.Idem;
import dev.idem.engine.state.StateDirectory;
import dev.idem.engine.store.MemoryStore;
import dev.idem.engine.store.SnapshotPolicy;
import dev.idem.engine.store.StateStore;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** When a checkpoint also writes the snapshots (memory exact tier backed by the journal). */
class TieredJudgeTest {

  @TempDir Path tmp;

  /**
   * A resume that replayed many journaled keys must count them: otherwise a job stopped often never
   * reaches the threshold within one run, and each resume replays more of the journal.
   */
  @ParameterizedTest
  @ValueSource(booleans = {false, true})
  void keysReplayedOnResumeCountTowardsTheNextSnapshot(boolean resumedWithLongJournal)
      throws IOException {
    BlockedBloomFilter filter = BlockedBloomFilter.create(100_000, 0.001);
    MemoryStore memory = MemoryStore.create(100_000, false, true);
    long threshold = SnapshotPolicy.keysPerSnapshot(filter.bitSize() / 8 + memory.snapshotBytes());
    int newKeys = 100;
    long replayed = resumedWithLongJournal ? threshold - newKeys : 0;
    try (StateDirectory dir = StateDirectory.open(tmp);
        StateStore store = StateStore.open(dir.storeDirectory(), 8 << 20, false)) {
      Deduplicator dedup = Idem.deduplicator().filter(filter).exactStore(memory).build();
      TieredJudge judge = new TieredJudge(dedup, dir, false, 0, replayed, CrashPoints.NONE);
      for (int i = 0; i < newKeys; i++) {
        assertThat(dedup.firstSeen(0x9E3779B97F4A7C15L * (i + 1), i, null)).isTrue();
      }
      try (StateStore.Commit commit = store.commit()) {
        judge.checkpoint(1, commit);
        commit.write(true);
      }
      judge.committed();
      assertThat(Files.exists(dir.snapshot(1))).isEqualTo(resumedWithLongJournal);
      assertThat(Files.exists(dir.exactSnapshot(1))).isEqualTo(resumedWithLongJournal);
      assertThat(judge.snapshotSequence()).isEqualTo(resumedWithLongJournal ? 1 : 0);
    }
  }
}
