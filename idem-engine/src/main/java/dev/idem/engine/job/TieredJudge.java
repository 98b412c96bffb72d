package dev.idem.engine.job;

import dev.idem.core.filter.FilterSnapshot;
import dev.idem.core.filter.MembershipFilter;
import dev.idem.engine.DedupStats;
import dev.idem.engine.Deduplicator;
import dev.idem.engine.Verdict;
import dev.idem.engine.records.RecordBatch;
import dev.idem.engine.state.StateDirectory;
import dev.idem.engine.state.WindowCheckpoint;
import dev.idem.engine.store.ExactStore;
import dev.idem.engine.store.MemoryStore;
import dev.idem.engine.store.PendingKeys;
import dev.idem.engine.store.SnapshotPolicy;
import dev.idem.engine.store.StateStore;
import java.io.IOException;

/**
 * "Ever seen" dedup: the {@link Deduplicator}'s tiers decide; checkpoints journal the kept keys
 * (and write them into {@code seen} when the manifest says so) and now and then snapshot the
 * filter, and with it the exact set when that lives in memory and only the journal backs it. See
 * docs/DESIGN.md, invariant 10 and section 3.1.
 */
final class TieredJudge implements Judge {

  private final Deduplicator dedup;
  private final MembershipFilter filter;
  private final StateDirectory dir;
  private final boolean writesSeen;
  private final CrashPoints crash;
  private final PendingKeys approximateKept = new PendingKeys();
  private final PendingKeys batch = new PendingKeys();
  private long snapshotSequence;
  private long journaledSinceSnapshot;
  private boolean snapshotWritten;
  private int prefetchedTo;

  /**
   * @param dir the state directory, or {@code null} for a job without checkpoints
   * @param journaledSinceSnapshot keys in the journal after the last snapshot (those a resume
   *     replayed): they count towards the next snapshot as much as keys journaled by this run
   * @param crash the test seam ({@link CrashPoints#NONE} but in DedupJobProtocolTest)
   */
  TieredJudge(
      Deduplicator dedup,
      StateDirectory dir,
      boolean writesSeen,
      long snapshotSequence,
      long journaledSinceSnapshot,
      CrashPoints crash) {
    this.dedup = dedup;
    this.crash = crash;
    this.filter = dedup.filter();
    this.dir = dir;
    this.writesSeen = writesSeen;
    this.snapshotSequence = snapshotSequence;
    this.journaledSinceSnapshot = journaledSinceSnapshot;
  }

  @Override
  public void prepare(RecordBatch batch) {
    prefetchedTo = 0;
  }

  @Override
  public Verdict judge(RecordBatch b, int i) {
    if (i >= prefetchedTo) {
      prefetchedTo = Math.min(b.count, i + MembershipFilter.PREFETCH_CHUNK);
      dedup.prefetch(b.fingerprints, i, prefetchedTo);
    }
    long hi = b.fingerprints[2 * i];
    long lo = b.fingerprints[2 * i + 1];
    if (!dedup.firstSeen(hi, lo, b.keys[i])) {
      return Verdict.DUPLICATE;
    }
    if (dedup.exactStore() == null && dir != null) {
      approximateKept.add(hi, lo, null); // approximate mode: the journal is the only record
    }
    return Verdict.KEPT;
  }

  @Override
  public void checkpoint(long sequence, StateStore.Commit commit) throws IOException {
    batch.clear();
    ExactStore exact = dedup.exactStore();
    if (exact != null) {
      exact.drainPending(batch);
    } else {
      batch.addAll(approximateKept);
      approximateKept.clear();
    }
    journaledSinceSnapshot += batch.size();
    MemoryStore memory =
        !writesSeen && exact instanceof MemoryStore ms && ms.snapshots() ? ms : null;
    long snapshotBytes = filter.bitSize() / 8 + (memory == null ? 0 : memory.snapshotBytes());
    snapshotWritten = SnapshotPolicy.due(journaledSinceSnapshot, snapshotBytes);
    if (snapshotWritten) {
      FilterSnapshot.write(dir.snapshot(sequence), filter, dedup.fingerprinter());
      crash.reached(CrashPoints.Step.FILTER_SNAPSHOT_WRITTEN);
      if (memory != null) {
        memory.writeSnapshot(dir.exactSnapshot(sequence), dedup.fingerprinter());
        crash.reached(CrashPoints.Step.EXACT_SNAPSHOT_WRITTEN);
      }
      snapshotSequence = sequence;
      journaledSinceSnapshot = 0;
    }
    if (writesSeen) {
      commit.seen(batch);
    }
    if (snapshotWritten && writesSeen) {
      // `seen` holds every key and the snapshot covers the filter: the journal can go
      commit.dropJournalBefore(sequence);
    } else {
      commit.journal(sequence, batch);
    }
  }

  @Override
  public void committed() throws IOException {
    if (snapshotWritten) {
      dir.deleteSnapshotsExcept(snapshotSequence);
    }
  }

  @Override
  public DedupStats stats() {
    return dedup.stats();
  }

  @Override
  public long snapshotSequence() {
    return snapshotSequence;
  }

  @Override
  public WindowCheckpoint window(String lateFile, long lateBytes) {
    return null;
  }

  @Override
  public void close() {
    dedup.close();
  }
}
