package dev.idem.engine.job;

import dev.idem.core.Fingerprinter;
import dev.idem.core.filter.FilterSnapshot;
import dev.idem.core.filter.FilterType;
import dev.idem.core.filter.Filters;
import dev.idem.core.filter.MembershipFilter;
import dev.idem.core.filter.SnapshotDamagedException;
import dev.idem.core.filter.StripedFingerprintSet;
import dev.idem.engine.JobException;
import dev.idem.engine.KeyMode;
import dev.idem.engine.run.JobListener;
import dev.idem.engine.run.PhaseProgress;
import dev.idem.engine.run.PhaseReporter;
import dev.idem.engine.run.StateDirectory;
import dev.idem.engine.state.Checkpoint;
import dev.idem.engine.state.ExactTierPlacement;
import dev.idem.engine.state.Manifest;
import dev.idem.engine.store.ExactTier;
import dev.idem.engine.store.JournalReplay;
import dev.idem.engine.store.MemoryExactTier;
import dev.idem.engine.store.RocksDbExactTier;
import dev.idem.engine.store.StateStore;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;

/**
 * Brings a job's tiers back to where its last checkpoint left them: the filter from its newest
 * snapshot plus the journal after it (or, if the snapshot is missing or damaged, rebuilt from every
 * key in the exact store), and the exact tier in memory (likewise from its own snapshot plus the
 * journal) or over RocksDB.
 *
 * <p>The invariant this restores: the filter holds every key the exact store holds. A filter
 * missing a key would answer "certainly new" for it and let a duplicate through.
 *
 * <p>An exact tier in memory keyed by fingerprints is a {@link dev.idem.core.filter.FingerprintSet}
 * that serves as the filter itself ({@link #setAlone}): its snapshot is the filter snapshot and its
 * journal tail the filter's, and there is no second tier. States written before this layout (a
 * Bloom filter in front of an in-memory set with its own snapshot) restore as they were written.
 *
 * <p>A snapshot written with page checksums is mapped and used in place: a striped set's tables are
 * probed in the map (its delta snapshot mapped beside it, when the checkpoint names one), a Bloom
 * filter's bits are read in the map and changed copy-on-write, and each page is verified when it is
 * first read, so the restore reads nothing that grows with the state but the journal after the
 * newest snapshot, which the snapshot policy keeps short.
 */
final class RestoredTiers {

  final MembershipFilter filter;
  final ExactTier exact;
  final RestoreCost restore;
  final List<String> warnings = new ArrayList<>();

  private RestoredTiers(
      MembershipFilter filter, ExactTier exact, RestoreCost restore, List<String> warnings) {
    this.filter = filter;
    this.exact = exact;
    this.restore = restore;
    this.warnings.addAll(warnings);
  }

  /**
   * Restores the tiers of a state at checkpoint {@code cp}. Where the kept keys are durable depends
   * on the manifest ({@link Manifest#writesSeen()}): in {@code seen}, or in the whole journal.
   */
  static RestoredTiers restore(
      StateDirectory dir,
      StateStore store,
      Checkpoint cp,
      Manifest m,
      Fingerprinter fingerprinter,
      long filterCapacity,
      JobListener listener)
      throws IOException {
    return restore(dir, store, cp, m, fingerprinter, filterCapacity, listener, true);
  }

  private static RestoredTiers restore(
      StateDirectory dir,
      StateStore store,
      Checkpoint cp,
      Manifest m,
      Fingerprinter fingerprinter,
      long filterCapacity,
      JobListener listener,
      boolean useDeltas)
      throws IOException {
    List<String> warnings = new ArrayList<>();
    MembershipFilter filter = null;
    long replayFrom = 1;
    boolean mappedInPlace = false;
    long delta = 0;
    long loading = System.nanoTime();
    // at most one journal entry per checkpoint after the snapshot (none for one that kept nothing);
    // the bar stands at 0 while the snapshot loads
    PhaseReporter progress =
        new PhaseReporter(
            listener,
            DedupJob.RESTORE,
            PhaseProgress.Unit.CHECKPOINTS,
            0,
            cp.sequence() - cp.snapshotSequence());
    if (cp.snapshotSequence() > 0) {
      try {
        FilterSnapshot s = FilterSnapshot.map(dir.snapshot(cp.snapshotSequence()));
        if (!s.fingerprinter().equals(fingerprinter)) {
          throw new IOException(
              s.file()
                  + ": written with "
                  + s.fingerprinter()
                  + ", the job hashes with "
                  + fingerprinter);
        }
        if (s.filter().type() != m.filterType()) {
          throw new IOException(
              s.file()
                  + ": a "
                  + s.filter().type().displayName()
                  + " filter, the job uses "
                  + m.filterType().displayName());
        }
        filter = s.filter();
        replayFrom = cp.snapshotSequence() + 1;
        mappedInPlace = s.verifiedLazily();
      } catch (IOException e) {
        warnings.add(
            setAlone(m)
                ? "exact-set snapshot unusable ("
                    + e.getMessage()
                    + "); rebuilt the set from the "
                    + "journal"
                : "filter snapshot unusable ("
                    + e.getMessage()
                    + "); rebuilt the filter from the exact store");
      }
    }
    if (useDeltas
        && filter instanceof StripedFingerprintSet set
        && set.layered()
        && cp.deltaSequence() > 0) {
      // the deltas after the full snapshot, each the keys since the one before, up to the newest
      // the checkpoint names; if one is missing or unusable the journal since the full is
      // replayed instead (the set alone never truncates its journal)
      List<Long> levels = dir.deltaSequences(cp.snapshotSequence(), cp.deltaSequence());
      List<StripedFingerprintSet> mapped = new ArrayList<>();
      try {
        if (levels.isEmpty() || levels.get(levels.size() - 1).longValue() != cp.deltaSequence()) {
          throw new IOException(dir.deltaSnapshot(cp.deltaSequence()) + " is missing");
        }
        for (long c : levels) {
          FilterSnapshot d = FilterSnapshot.map(dir.deltaSnapshot(c));
          if (!d.fingerprinter().equals(fingerprinter)
              || !(d.filter() instanceof StripedFingerprintSet deltaSet)
              || !deltaSet.layered()) {
            throw new IOException(d.file() + ": not a delta of this job's exact set");
          }
          mapped.add(deltaSet);
        }
        mapped.forEach(set::attachDelta);
        replayFrom = cp.deltaSequence() + 1;
        delta = cp.deltaSequence();
      } catch (IOException | IllegalArgumentException e) {
        warnings.add(
            "delta snapshot unusable ("
                + e.getMessage()
                + "); replayed the journal since the full snapshot instead");
      }
    }
    if (filter instanceof StripedFingerprintSet set && set.layered()) {
      // the journal after the newest snapshot goes to the overlay: room for it all, no regrowth
      set.reserveOverlay(cp.stats().kept() - set.size());
    }
    boolean rebuilt = filter == null && cp.snapshotSequence() > 0;
    if (filter == null) {
      filter =
          Filters.forKeys(m.filterType(), m.expectedKeys().countOr(-1), filterCapacity, m.fpp());
    }
    MembershipFilter f = filter;
    // in memory mode without `seen`, the journal is also what the exact set is rebuilt from
    ExactTierPlacement.Kind where = m.exactTier().kind();
    boolean journalSet = where == ExactTierPlacement.Kind.MEMORY && !m.writesSeen() && !setAlone(m);
    MemoryExactTier set = journalSet ? setSnapshot(dir, cp, fingerprinter, warnings) : null;
    long setFrom = set != null ? cp.snapshotSequence() + 1 : 1;
    if (journalSet && set == null) {
      set = MemoryExactTier.create(Math.max(cp.stats().kept(), 1024), false, true);
    }
    long replaying = System.nanoTime();
    long replayed = 0;
    if (rebuilt && m.writesSeen()) {
      // the journal before the snapshot is gone, but `seen` has every kept key
      store.forEachSeen((hi, lo, key) -> f.put(hi, lo));
    } else if (journalSet && setFrom == replayFrom) {
      replayed =
          JournalReplay.replay(
              store, replayFrom, cp.sequence(), filter, set, progress::at); // one pass feeds both
    } else {
      replayed = JournalReplay.replay(store, replayFrom, cp.sequence(), filter, null, progress::at);
    }
    if (journalSet && setFrom != replayFrom) {
      JournalReplay.replay(store, setFrom, cp.sequence(), null, set);
    }
    progress.end();
    if (delta > 0 && filter.approximateCount() < cp.stats().kept()) {
      // a delta between the full snapshot and the newest is gone: the levels lack its keys
      RestoredTiers again =
          restore(dir, store, cp, m, fingerprinter, filterCapacity, listener, false);
      again.warnings.add(
          0,
          "the delta snapshots after "
              + dir.snapshot(cp.snapshotSequence()).getFileName()
              + " hold "
              + (cp.stats().kept() - filter.approximateCount())
              + " fewer keys than the checkpoint kept (one is missing); replayed the journal since"
              + " the full snapshot instead");
      return again;
    }
    long replayNanos = System.nanoTime() - replaying;
    ExactTier exact = null;
    boolean full = m.keyMode() == KeyMode.FULL_KEY;
    if (journalSet) {
      exact = set;
    } else if (setAlone(m)) {
      exact = null; // the filter is the set
    } else if (where == ExactTierPlacement.Kind.MEMORY) {
      exact = memoryFromSeen(store, cp);
    } else if (where == ExactTierPlacement.Kind.ROCKSDB) {
      exact = RocksDbExactTier.forCheckpoints(store, full, cp.stats().kept());
    }
    long loadNanos = System.nanoTime() - loading - replayNanos;
    RestoreCost restore =
        new RestoreCost(
            loadNanos / 1_000_000,
            replayed,
            replayNanos / 1_000_000,
            rebuilt,
            0,
            0,
            0,
            mappedInPlace,
            delta);
    return new RestoredTiers(filter, exact, restore, warnings);
  }

  /**
   * Whether the job's exact tier is an in-memory fingerprint set serving as its filter, with no
   * second tier.
   */
  static boolean setAlone(Manifest m) {
    return m.exactTier().kind() == ExactTierPlacement.Kind.MEMORY
        && (m.filterType() == FilterType.EXACT || m.filterType() == FilterType.EXACT_STRIPED)
        && m.keyMode() == KeyMode.FINGERPRINT;
  }

  /** The exact set of the snapshot at checkpoint {@code cp}, or null when there is none usable. */
  private static MemoryExactTier setSnapshot(
      StateDirectory dir, Checkpoint cp, Fingerprinter fingerprinter, List<String> warnings) {
    if (cp.snapshotSequence() == 0) {
      return null;
    }
    try {
      return MemoryExactTier.fromSnapshot(
          dir.exactSnapshot(cp.snapshotSequence()), fingerprinter, true);
    } catch (IOException e) {
      warnings.add(
          "exact-set snapshot unusable ("
              + e.getMessage()
              + "); rebuilt the set from "
              + "the journal");
      return null;
    }
  }

  private static MemoryExactTier memoryFromSeen(StateStore store, Checkpoint cp) {
    MemoryExactTier memory = MemoryExactTier.create(Math.max(cp.stats().kept(), 1024), true, true);
    memory.loadFrom(store);
    return memory;
  }

  /**
   * Moves a snapshot found damaged while the job ran aside, as {@code <name>.damaged}, so that the
   * resume that follows finds it missing and rebuilds what it held from what is durable (the set
   * from the journal, the filter from the exact store, a delta's keys from the journal after the
   * full snapshot). Returns where it went, or {@code null} when it could not be moved.
   */
  static String moveAside(Path file) {
    Path aside = file.resolveSibling(file.getFileName() + ".damaged");
    try {
      Files.move(file, aside, StandardCopyOption.REPLACE_EXISTING);
      return aside.toString();
    } catch (IOException | RuntimeException failed) {
      return null;
    }
  }

  /**
   * The refusal of a job that found a snapshot damaged and cannot rebuild it itself: the message
   * names the file and says what to do; {@code why} (or nothing) says why it stopped.
   */
  static JobException damaged(SnapshotDamagedException e, String why) {
    JobException refused =
        new JobException(
            e.getMessage()
                + "; the job stopped before any answer rested on it"
                + (why == null ? "; move it aside" : "; " + why)
                + " and run the same command again: it rebuilds what the snapshot held from the"
                + " journal (or the exact store) and resumes from the last checkpoint");
    refused.initCause(e);
    return refused;
  }

  /** Fresh tiers for a job without state (or a new state). */
  static RestoredTiers fresh(MembershipFilter filter, ExactTier exact) {
    return new RestoredTiers(filter, exact, RestoreCost.NONE, List.of());
  }
}
