package dev.idem.engine.job;

import dev.idem.core.filter.MembershipFilter;
import dev.idem.engine.DedupStats;
import dev.idem.engine.Deduplicator;
import dev.idem.engine.Verdict;
import dev.idem.engine.records.RecordBatch;
import dev.idem.engine.store.RocksDbExactTier;
import dev.idem.engine.store.StateStore;
import dev.idem.engine.store.TierAssembly;

/**
 * The judge of a run over a history: a record is kept when its key is in neither the history nor
 * this run so far, which the history's durable deduplicator answers alone (its filter, then its
 * RocksDB store for a "maybe", then the keys this run kept since its last commit). Its changes are
 * committed by {@link HistoryRun#commit}, with the run's token, not into a job's own store.
 */
final class HistoryJudge implements Judge {

  private final Deduplicator history;
  private final MembershipFilter filter;

  /** The history's RocksDB tier, or {@code null} for another deduplicator (in tests). */
  private final RocksDbExactTier exact;

  private int[] maybe = new int[RecordBatch.MAX_RECORDS];
  private int prefetchedTo;

  HistoryJudge(Deduplicator history) {
    this.history = history;
    this.filter = history.filter();
    this.exact = TierAssembly.exactTier(history) instanceof RocksDbExactTier r ? r : null;
  }

  /**
   * Looks up together, in one RocksDB multi-get, the batch's keys that the filter already says
   * "maybe" to: the keys of earlier runs, mostly, which one at a time cost a native call and a walk
   * through the store each. A key the filter takes up during the batch (a repeat within it, or a
   * false positive of a key just added) is answered by the pending keys, or read on its own.
   */
  @Override
  public void prepare(RecordBatch batch) {
    prefetchedTo = 0;
    if (exact == null) {
      return;
    }
    if (maybe.length < batch.count) {
      maybe = new int[batch.count];
    }
    int n = 0;
    for (int from = 0; from < batch.count; from += MembershipFilter.PREFETCH_CHUNK) {
      int to = Math.min(batch.count, from + MembershipFilter.PREFETCH_CHUNK);
      filter.prefetch(batch.fingerprints, from, to);
      for (int i = from; i < to; i++) {
        if (batch.kind[i] == RecordBatch.OK
            && filter.mightContain(batch.fingerprints[2 * i], batch.fingerprints[2 * i + 1])) {
          maybe[n++] = i;
        }
      }
    }
    exact.lookAhead(batch.fingerprints, batch.keys, maybe, n);
  }

  @Override
  public Verdict judge(RecordBatch b, int i) {
    if (i >= prefetchedTo) {
      prefetchedTo = Math.min(b.count, i + MembershipFilter.PREFETCH_CHUNK);
      history.prefetch(b.fingerprints, i, prefetchedTo);
    }
    return history.firstSeen(b.fingerprints[2 * i], b.fingerprints[2 * i + 1], b.keys[i])
        ? Verdict.KEPT
        : Verdict.DUPLICATE;
  }

  @Override
  public void checkpoint(long sequence, StateStore.Commit commit, boolean complete) {
    throw new IllegalStateException("a history run commits through its history, not a store");
  }

  @Override
  public DedupStats stats() {
    return history.stats();
  }

  @Override
  public void close() {
    // the history is closed by its run
  }
}
