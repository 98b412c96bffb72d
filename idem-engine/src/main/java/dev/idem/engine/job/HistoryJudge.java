package dev.idem.engine.job;

import dev.idem.core.filter.MembershipFilter;
import dev.idem.engine.DedupStats;
import dev.idem.engine.Deduplicator;
import dev.idem.engine.Verdict;
import dev.idem.engine.records.RecordBatch;
import dev.idem.engine.store.StateStore;

/**
 * The judge of a run over a history: a record is kept when its key is in neither the history nor
 * this run so far, which the history's durable deduplicator answers alone (its filter, then its
 * RocksDB store for a "maybe", then the keys this run kept since its last commit). Its changes are
 * committed by {@link HistoryRun#commit}, with the run's token, not into a job's own store.
 */
final class HistoryJudge implements Judge {

  private final Deduplicator history;
  private int prefetchedTo;

  HistoryJudge(Deduplicator history) {
    this.history = history;
  }

  @Override
  public void prepare(RecordBatch batch) {
    prefetchedTo = 0;
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
