package dev.idem.engine.job;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idem.core.Fingerprinter;
import dev.idem.core.filter.BlockedBloomFilter;
import dev.idem.core.filter.StripedFingerprintSet;
import dev.idem.engine.DedupMode;
import dev.idem.engine.Deduplicator;
import dev.idem.engine.KeyMode;
import dev.idem.engine.Verdict;
import dev.idem.engine.records.RecordBatch;
import dev.idem.engine.records.RecordBatchFixture;
import dev.idem.engine.run.CrashPoints;
import dev.idem.engine.run.StateDirectory;
import dev.idem.engine.state.Manifest;
import dev.idem.engine.store.MemoryExactTier;
import dev.idem.engine.store.SnapshotPolicy;
import dev.idem.engine.store.StateStore;
import dev.idem.engine.store.TierAssembly;
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
    MemoryExactTier memory = MemoryExactTier.create(100_000, false, true);
    long threshold = SnapshotPolicy.keysPerSnapshot(filter.bitSize() / 8 + memory.snapshotBytes());
    int newKeys = 100;
    long replayed = resumedWithLongJournal ? threshold - newKeys : 0;
    try (StateDirectory dir = StateDirectory.open(tmp, Manifest.FILE);
        StateStore store = StateStore.open(dir.storeDirectory(), 8 << 20, false)) {
      Deduplicator dedup =
          TierAssembly.assemble(
              filter, memory, Fingerprinter.xxh3(), DedupMode.EXACT, KeyMode.FINGERPRINT, 0);
      TieredJudge judge =
          new TieredJudge(dedup, dir, false, 0, 0, replayed, CrashPoints.NONE, null);
      for (int i = 0; i < newKeys; i++) {
        assertThat(dedup.firstSeen(0x9E3779B97F4A7C15L * (i + 1), i, null)).isTrue();
      }
      try (StateStore.Commit commit = store.commit()) {
        judge.checkpoint(1, commit, false);
        commit.write(true);
      }
      judge.committed();
      assertThat(Files.exists(dir.snapshot(1))).isEqualTo(resumedWithLongJournal);
      assertThat(Files.exists(dir.exactSnapshot(1))).isEqualTo(resumedWithLongJournal);
      assertThat(judge.snapshotSequence()).isEqualTo(resumedWithLongJournal ? 1 : 0);
    }
  }

  /**
   * Workers decide a whole batch before the job hands its verdicts out one by one; a checkpoint
   * inside the batch (a bad record under the fail policy) must journal only what was handed out and
   * must not snapshot the set, which already holds the rest of the batch: a resume from that
   * snapshot would call the rest duplicates.
   */
  @org.junit.jupiter.api.Test
  void aCheckpointInsideADecidedBatchJournalsWhatWasHandedOutAndWritesNoSnapshot()
      throws IOException {
    StripedFingerprintSet set = StripedFingerprintSet.withExpectedSize(16);
    RecordBatch batch = RecordBatchFixture.of(1000);
    try (StateDirectory dir = StateDirectory.open(tmp, Manifest.FILE);
        StateStore store = StateStore.open(dir.storeDirectory(), 8 << 20, false)) {
      Deduplicator dedup =
          TierAssembly.assemble(
              set, null, Fingerprinter.xxh3(), DedupMode.EXACT, KeyMode.FINGERPRINT, 0);
      // journaled keys far past the snapshot threshold: only the rule above holds a snapshot back
      TieredJudge judge =
          new TieredJudge(
              dedup, dir, false, 0, 0, 1L << 40, CrashPoints.NONE, new StripeWorkers(set, 3));
      judge.prepare(batch);
      assertThat(set.size()).isEqualTo(1000);
      for (int i = 0; i < 400; i++) {
        assertThat(judge.judge(batch, i)).isEqualTo(Verdict.KEPT);
      }
      try (StateStore.Commit commit = store.commit()) {
        judge.checkpoint(1, commit, false);
        commit.write(true);
      }
      judge.committed();
      assertThat(Files.exists(dir.snapshot(1))).as("snapshot inside the batch").isFalse();
      long[] journaled = new long[1];
      store.forEachJournaled(1, 1, (hi, lo, key) -> journaled[0]++);
      assertThat(journaled[0]).isEqualTo(400);
      for (int i = 400; i < 1000; i++) {
        assertThat(judge.judge(batch, i)).isEqualTo(Verdict.KEPT);
      }
      try (StateStore.Commit commit = store.commit()) {
        judge.checkpoint(2, commit, false);
        commit.write(true);
      }
      judge.committed();
      assertThat(Files.exists(dir.snapshot(2))).as("snapshot at the batch's end").isTrue();
      assertThat(judge.stats().kept()).isEqualTo(1000);
      judge.close();
    }
  }
}
