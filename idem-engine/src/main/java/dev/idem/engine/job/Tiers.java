package dev.idem.engine.job;

import dev.idem.core.Fingerprinter;
import dev.idem.core.filter.FilterSnapshot;
import dev.idem.core.filter.FilterType;
import dev.idem.core.filter.MembershipFilter;
import dev.idem.engine.Deduplicator;
import dev.idem.engine.KeyMode;
import dev.idem.engine.store.ExactStore;
import dev.idem.engine.store.MemoryStore;
import dev.idem.engine.store.RocksDbStore;
import dev.idem.engine.store.StateStore;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * Brings a job's tiers back to where its last checkpoint left them: the filter from its newest
 * snapshot plus the journal after it (or, if the snapshot is missing or damaged, rebuilt from
 * every key in the exact store), and the exact tier in memory (likewise from its own snapshot plus
 * the journal) or over RocksDB.
 *
 * <p>The invariant this restores: the filter holds every key the exact store holds. A filter
 * missing a key would answer "certainly new" for it and let a duplicate through.
 */
final class Tiers {

  final MembershipFilter filter;
  final ExactStore exact;
  final long journalReplayed;
  final boolean filterRebuilt;
  final List<String> warnings = new ArrayList<>();

  private Tiers(MembershipFilter filter, ExactStore exact, long journalReplayed,
      boolean rebuilt, List<String> warnings) {
    this.filter = filter;
    this.exact = exact;
    this.journalReplayed = journalReplayed;
    this.filterRebuilt = rebuilt;
    this.warnings.addAll(warnings);
  }

  /** A new filter as the job's options describe it. */
  static MembershipFilter newFilter(String filterType, long capacity, double fpp,
      long expectedKeys) {
    FilterType type = FilterType.byName(filterType);
    return Deduplicator.newFilter(type, expectedKeys > 0 ? expectedKeys : capacity, fpp);
  }

  /**
   * Restores the tiers of a state at checkpoint {@code cp}. Where the kept keys are durable
   * depends on the manifest ({@link Manifest#writesSeen()}): in {@code seen}, or in the whole
   * journal.
   */
  static Tiers restore(StateDirectory dir, StateStore store, Checkpoint cp, Manifest m,
      Fingerprinter fingerprinter, long filterCapacity) throws IOException {
    List<String> warnings = new ArrayList<>();
    MembershipFilter filter = null;
    long replayFrom = 1;
    if (cp.snapshotSequence() > 0) {
      try {
        FilterSnapshot s = FilterSnapshot.map(dir.snapshot(cp.snapshotSequence()));
        if (!s.fingerprinter().equals(fingerprinter)) {
          throw new IOException(s.file() + ": written with " + s.fingerprinter()
              + ", the job hashes with " + fingerprinter);
        }
        if (!s.filter().type().displayName().equals(m.filterType())) {
          throw new IOException(s.file() + ": a " + s.filter().type().displayName()
              + " filter, the job uses " + m.filterType());
        }
        filter = s.filter();
        replayFrom = cp.snapshotSequence() + 1;
      } catch (IOException e) {
        warnings.add("filter snapshot unusable (" + e.getMessage() + "); rebuilt the filter "
            + "from the exact store");
      }
    }
    boolean rebuilt = filter == null && cp.snapshotSequence() > 0;
    if (filter == null) {
      filter = newFilter(m.filterType(), filterCapacity, m.fpp(), m.expectedKeys());
    }
    MembershipFilter f = filter;
    long[] replayed = new long[1];
    if (rebuilt && m.writesSeen()) {
      // the journal before the snapshot is gone, but `seen` has every kept key
      store.forEachSeen((hi, lo, key) -> f.put(hi, lo));
    } else {
      store.forEachJournaled(replayFrom, cp.sequence(), (hi, lo, key) -> {
        f.put(hi, lo);
        replayed[0]++;
      });
    }
    ExactStore exact = null;
    boolean full = KeyMode.valueOf(m.keyMode()) == KeyMode.FULL_KEY;
    if (m.exactStore().equals("memory")) {
      exact = m.writesSeen() ? memoryFromSeen(store, cp)
          : memoryFromJournal(dir, store, cp, fingerprinter, warnings);
    } else if (m.exactStore().equals("rocksdb")) {
      exact = RocksDbStore.forCheckpoints(store, full, cp.stats().kept());
    }
    return new Tiers(filter, exact, replayed[0], rebuilt, warnings);
  }

  private static MemoryStore memoryFromSeen(StateStore store, Checkpoint cp) {
    MemoryStore memory = MemoryStore.create(Math.max(cp.stats().kept(), 1024), true, true);
    memory.loadFrom(store);
    return memory;
  }

  /**
   * The exact set from its snapshot of the filter's checkpoint plus the journal after it; from
   * the whole journal (never truncated in this layout) when there is no usable snapshot.
   */
  private static MemoryStore memoryFromJournal(StateDirectory dir, StateStore store,
      Checkpoint cp, Fingerprinter fingerprinter, List<String> warnings) {
    MemoryStore memory = null;
    long from = 1;
    if (cp.snapshotSequence() > 0) {
      try {
        memory = MemoryStore.fromSnapshot(dir.exactSnapshot(cp.snapshotSequence()),
            fingerprinter, true);
        from = cp.snapshotSequence() + 1;
      } catch (IOException e) {
        warnings.add("exact-set snapshot unusable (" + e.getMessage() + "); rebuilt the set "
            + "from the journal");
      }
    }
    if (memory == null) {
      memory = MemoryStore.create(Math.max(cp.stats().kept(), 1024), false, true);
    }
    store.forEachJournaled(from, cp.sequence(), memory::restore);
    return memory;
  }

  /** Fresh tiers for a job without state (or a new state). */
  static Tiers fresh(MembershipFilter filter, ExactStore exact) {
    return new Tiers(filter, exact, 0, false, List.of());
  }
}
