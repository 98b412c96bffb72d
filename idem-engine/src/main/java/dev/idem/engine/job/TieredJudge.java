package dev.idem.engine.job;

import dev.idem.core.filter.FilterSnapshot;
import dev.idem.core.filter.MembershipFilter;
import dev.idem.core.filter.StripedFingerprintSet;
import dev.idem.engine.DedupStats;
import dev.idem.engine.Deduplicator;
import dev.idem.engine.Verdict;
import dev.idem.engine.records.RecordBatch;
import dev.idem.engine.run.CrashPoints;
import dev.idem.engine.run.StateDirectory;
import dev.idem.engine.store.ExactTier;
import dev.idem.engine.store.MemoryExactTier;
import dev.idem.engine.store.PendingKeys;
import dev.idem.engine.store.RocksDbExactTier;
import dev.idem.engine.store.SnapshotPolicy;
import dev.idem.engine.store.StateStore;
import dev.idem.engine.store.TierAssembly;
import java.io.IOException;

/**
 * "Ever seen" dedup: the {@link Deduplicator}'s tiers decide; checkpoints journal the kept keys
 * (and write them into {@code seen} when the manifest says so) and now and then snapshot the
 * filter, and with it the exact set when that lives in memory and only the journal backs it. An
 * exact striped set alone writes a full snapshot or a delta of the keys since the newest snapshot
 * ({@link SnapshotPolicy#forSetAlone}), so that a resume maps them in place and replays a bounded
 * journal; the running job's set stays in the heap. A resumed set, mapped, comes into the heap a
 * stripe per batch ({@link StripedFingerprintSet#promoteNext}) while it answers. Snapshots are
 * written with page checksums. See docs/DESIGN.md, invariant 10 and section 3.1.
 */
final class TieredJudge implements Judge {

  private final Deduplicator dedup;
  private final MembershipFilter filter;
  private final StateDirectory dir;
  private final boolean writesSeen;
  private final CrashPoints crash;

  /** Kept keys for the journal when there is no exact store to track them. */
  private final PendingKeys keptToJournal = new PendingKeys();

  private final PendingKeys batch = new PendingKeys();
  private long snapshotSequence;
  private long deltaSequence;
  private long deltaKeysOnDisk;

  /**
   * The keys an exact set alone kept since its newest snapshot, full or delta: what the next delta
   * writes (null for other tiers). A resumed set starts it with the journal it replayed.
   */
  private final PendingKeys sinceSnapshot;

  /** Whether a full snapshot of the set alone is on disk for deltas to go with. */
  private boolean fullOnDisk;

  /** The delta snapshots on disk after the full one. */
  private int deltaLevels;

  private long journaledSinceSnapshot;
  private boolean snapshotWritten;
  private int prefetchedTo;

  /** Decides whole batches on several threads in {@link #prepare}, or null: {@link #judge} does. */
  private final StripeWorkers workers;

  /**
   * Keys the workers added to the set whose records {@link #judge} has not handed out yet: while
   * there are any, the set is ahead of the journal and must not be snapshotted.
   */
  private long keysAhead;

  private long aheadKept;
  private long aheadDuplicates;

  /**
   * @param dir the state directory, or {@code null} for a job without checkpoints
   * @param journaledSinceSnapshot keys in the journal after the last snapshot (those a resume
   *     replayed): they count towards the next snapshot as much as keys journaled by this run
   * @param crash the test seam ({@link CrashPoints#NONE} but in DedupJobProtocolTest)
   * @param workers threads that decide whole batches ahead of {@link #judge} (the exact set alone,
   *     striped), or {@code null}
   */
  TieredJudge(
      Deduplicator dedup,
      StateDirectory dir,
      boolean writesSeen,
      long snapshotSequence,
      long deltaSequence,
      long journaledSinceSnapshot,
      CrashPoints crash,
      StripeWorkers workers) {
    this.dedup = dedup;
    this.workers = workers;
    this.crash = crash;
    this.filter = dedup.filter();
    this.dir = dir;
    this.writesSeen = writesSeen;
    this.snapshotSequence = snapshotSequence;
    this.deltaSequence = deltaSequence;
    this.journaledSinceSnapshot = journaledSinceSnapshot;
    StripedFingerprintSet alone = setAlone();
    this.deltaKeysOnDisk = alone != null ? alone.keysSinceBase() - alone.overlayKeys() : 0;
    this.deltaLevels = alone != null ? alone.deltaLevels() : 0;
    this.sinceSnapshot = alone != null ? new PendingKeys() : null;
    if (alone != null && alone.layered()) {
      alone.forEachInOverlay((hi, lo) -> sinceSnapshot.add(hi, lo, null));
    }
    // a set restored any other way than mapped (rebuilt from the journal, or from a snapshot
    // without page checksums) has no full snapshot deltas could go with
    this.fullOnDisk = alone != null && alone.layered();
  }

  /** The exact striped set that is the job's only tier and writes its own snapshots, or null. */
  private StripedFingerprintSet setAlone() {
    return dir != null
            && !writesSeen
            && TierAssembly.exactTier(dedup) == null
            && filter instanceof StripedFingerprintSet set
        ? set
        : null;
  }

  @Override
  public void prepare(RecordBatch batch) {
    prefetchedTo = 0;
    if (sinceSnapshot != null) {
      // between batches no worker touches the set: a resumed set brings its next stripe in
      ((StripedFingerprintSet) filter).promoteNext();
    }
    if (workers != null) {
      workers.decide(batch);
      for (int i = 0; i < batch.count; i++) {
        keysAhead += batch.kind[i] == RecordBatch.OK && workers.kept(batch, i) ? 1 : 0;
      }
    }
  }

  @Override
  public boolean readsItsCheckpoints() {
    return TierAssembly.exactTier(dedup)
        instanceof RocksDbExactTier; // drained keys are found in `seen` only
  }

  @Override
  public boolean decidesAhead() {
    return workers != null;
  }

  @Override
  public Verdict judge(RecordBatch b, int i) {
    if (workers != null) {
      return handOut(b, i);
    }
    if (i >= prefetchedTo) {
      prefetchedTo = Math.min(b.count, i + MembershipFilter.PREFETCH_CHUNK);
      dedup.prefetch(b.fingerprints, i, prefetchedTo);
    }
    long hi = b.fingerprints[2 * i];
    long lo = b.fingerprints[2 * i + 1];
    if (!dedup.firstSeen(hi, lo, b.keys[i])) {
      return Verdict.DUPLICATE;
    }
    if (TierAssembly.exactTier(dedup) == null && dir != null) {
      keptToJournal.add(hi, lo, null); // approximate mode: the journal is the only record
    }
    return Verdict.KEPT;
  }

  /** The verdict the workers reached on record {@code i}. */
  private Verdict handOut(RecordBatch b, int i) {
    if (!workers.kept(b, i)) {
      aheadDuplicates++;
      return Verdict.DUPLICATE;
    }
    keysAhead--;
    aheadKept++;
    if (dir != null) {
      keptToJournal.add(b.fingerprints[2 * i], b.fingerprints[2 * i + 1], null);
    }
    return Verdict.KEPT;
  }

  @Override
  public void checkpoint(long sequence, StateStore.Commit commit, boolean complete)
      throws IOException {
    batch.clear();
    ExactTier exact = TierAssembly.exactTier(dedup);
    if (exact != null) {
      exact.drainPending(batch);
    } else {
      batch.addAll(keptToJournal);
      keptToJournal.clear();
    }
    journaledSinceSnapshot += batch.size();
    StripedFingerprintSet alone = sinceSnapshot != null ? (StripedFingerprintSet) filter : null;
    MemoryExactTier memory =
        !writesSeen && exact instanceof MemoryExactTier ms && ms.snapshots() ? ms : null;
    long snapshotBytes = filter.bitSize() / 8 + (memory == null ? 0 : memory.snapshotBytes());
    // a checkpoint inside a batch the workers decided whole (a bad record under --on-bad-record
    // fail) journals what was handed out; the set holds more, so it waits for the next snapshot
    boolean mayWrite = !complete && keysAhead == 0 && dir != null;
    if (alone != null) {
      sinceSnapshot.addAll(batch);
      // a resume never reads the set's tables (it maps them): the journal is weighed against the
      // set's keys (16 bytes each), not its table
      long setBytes = 16 * alone.size();
      SnapshotPolicy.Write write =
          mayWrite
              ? SnapshotPolicy.forSetAlone(
                  journaledSinceSnapshot,
                  setBytes,
                  fullOnDisk ? alone.size() - deltaKeysOnDisk - sinceSnapshot.size() : 0,
                  deltaKeysOnDisk,
                  deltaLevels)
              : SnapshotPolicy.Write.NONE;
      snapshotWritten = write != SnapshotPolicy.Write.NONE;
      if (write == SnapshotPolicy.Write.FULL) {
        // snapshots are written from the heap: the rest of a resumed set comes in first
        while (!alone.promoteNext()) {}
        FilterSnapshot.writePaged(dir.snapshot(sequence), alone, dedup.fingerprinter());
        crash.reached(DedupStep.FILTER_SNAPSHOT_WRITTEN);
        snapshotSequence = sequence;
        deltaSequence = 0;
        deltaKeysOnDisk = 0;
        deltaLevels = 0;
        fullOnDisk = true;
      } else if (write == SnapshotPolicy.Write.DELTA) {
        FilterSnapshot.writePaged(
            dir.deltaSnapshot(sequence), setOf(sinceSnapshot), dedup.fingerprinter());
        crash.reached(DedupStep.DELTA_SNAPSHOT_WRITTEN);
        deltaSequence = sequence;
        deltaKeysOnDisk += sinceSnapshot.size();
        deltaLevels++;
      }
      if (snapshotWritten) {
        sinceSnapshot.clear();
      }
      if (snapshotWritten) {
        journaledSinceSnapshot = 0;
      }
    } else {
      snapshotWritten = mayWrite && SnapshotPolicy.due(journaledSinceSnapshot, snapshotBytes);
    }
    if (snapshotWritten && alone == null) {
      FilterSnapshot.writePaged(dir.snapshot(sequence), filter, dedup.fingerprinter());
      crash.reached(DedupStep.FILTER_SNAPSHOT_WRITTEN);
      if (memory != null) {
        memory.writeSnapshot(dir.exactSnapshot(sequence), dedup.fingerprinter());
        crash.reached(DedupStep.EXACT_SNAPSHOT_WRITTEN);
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

  /** The keys as a striped set, filled in home-slot order. */
  private static StripedFingerprintSet setOf(PendingKeys keys) {
    long[] pairs = new long[2 * keys.size()];
    for (int i = 0; i < keys.size(); i++) {
      pairs[2 * i] = keys.hi(i);
      pairs[2 * i + 1] = keys.lo(i);
    }
    return StripedFingerprintSet.ofKeys(pairs, keys.size());
  }

  @Override
  public void committed() throws IOException {
    if (snapshotWritten) {
      dir.deleteSnapshotsExcept(snapshotSequence, deltaSequence);
    }
  }

  @Override
  public long deltaSequence() {
    return deltaSequence;
  }

  @Override
  public DedupStats stats() {
    return dedup
        .stats()
        .plus(new DedupStats(aheadKept + aheadDuplicates, aheadKept, aheadDuplicates, 0, 0, 0));
  }

  @Override
  public long snapshotSequence() {
    return snapshotSequence;
  }

  @Override
  public void close() {
    if (workers != null) {
      workers.close();
    }
    dedup.close();
  }
}
