package dev.idem.engine.job;

import dev.idem.core.filter.MembershipFilter;
import dev.idem.engine.DedupStats;
import dev.idem.engine.Verdict;
import dev.idem.engine.records.RecordBatch;
import dev.idem.engine.state.WindowCheckpoint;
import dev.idem.engine.store.StateStore;
import java.io.IOException;

/**
 * Keys that earlier jobs kept ({@code --seen-before}, e.g. a node's file from {@code idem reshard})
 * are duplicates before any tier is asked; the rest go to the job's own judge. The set is read-only
 * and the same on every resume, so verdicts stay reproducible.
 */
final class SeenBeforeJudge implements Judge {

  private final Judge inner;
  private final MembershipFilter seen;
  private long hits;

  SeenBeforeJudge(Judge inner, MembershipFilter seen) {
    this.inner = inner;
    this.seen = seen;
  }

  @Override
  public void prepare(RecordBatch batch) throws IOException {
    inner.prepare(batch);
  }

  @Override
  public Verdict judge(RecordBatch b, int i) {
    if (seen.mightContain(b.fingerprints[2 * i], b.fingerprints[2 * i + 1])) {
      hits++;
      return Verdict.DUPLICATE;
    }
    return inner.judge(b, i);
  }

  @Override
  public void checkpoint(long sequence, StateStore.Commit commit, boolean complete)
      throws IOException {
    inner.checkpoint(sequence, commit, complete);
  }

  @Override
  public boolean readsItsCheckpoints() {
    return inner.readsItsCheckpoints();
  }

  @Override
  public void committed() throws IOException {
    inner.committed();
  }

  @Override
  public DedupStats stats() {
    return inner.stats().plus(new DedupStats(hits, 0, hits, 0, 0, 0));
  }

  @Override
  public long snapshotSequence() {
    return inner.snapshotSequence();
  }

  @Override
  public WindowCheckpoint window(String lateFile, long lateBytes) {
    return inner.window(lateFile, lateBytes);
  }

  @Override
  public void close() {
    inner.close();
  }
}
