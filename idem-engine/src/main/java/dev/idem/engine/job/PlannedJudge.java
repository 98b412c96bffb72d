package dev.idem.engine.job;

import dev.idem.engine.DedupStats;
import dev.idem.engine.JobException;
import dev.idem.engine.Verdict;
import dev.idem.engine.partition.DuplicateBits;
import dev.idem.engine.records.RecordBatch;
import dev.idem.engine.store.StateStore;
import java.io.IOException;

/**
 * The verdicts of the partitioned method, worked out before the job's loop ({@link
 * PartitionedPlan}): the judged record with ordinal {@code n} is a duplicate when bit {@code n} is
 * set. Its state is only how many records it has judged, which a checkpoint's counts already hold,
 * so checkpoints add nothing to the commit.
 */
final class PlannedJudge implements Judge {

  private final DuplicateBits bits;
  private long next;
  private long kept;
  private long duplicates;

  /** A judge whose first record has ordinal {@code first} (the judged records before a resume). */
  PlannedJudge(DuplicateBits bits, long first) {
    this.bits = bits;
    this.next = first;
  }

  @Override
  public void prepare(RecordBatch batch) throws IOException {
    long judged = 0;
    for (int i = 0; i < batch.count; i++) {
      judged += batch.kind[i] == RecordBatch.OK ? 1 : 0;
    }
    if (next + judged > bits.records()) {
      throw changed("more");
    }
  }

  @Override
  public Verdict judge(RecordBatch batch, int i) {
    if (bits.isDuplicate(next++)) {
      duplicates++;
      return Verdict.DUPLICATE;
    }
    kept++;
    return Verdict.KEPT;
  }

  @Override
  public void checkpoint(long sequence, StateStore.Commit commit, boolean complete)
      throws IOException {
    if (complete && next != bits.records()) {
      throw changed("fewer");
    }
  }

  private JobException changed(String moreOrFewer) {
    return new JobException(
        "the inputs hold "
            + moreOrFewer
            + " records than when the job's first pass read them ("
            + bits.records()
            + "): they changed during the job; start over with a new --state");
  }

  @Override
  public DedupStats stats() {
    return new DedupStats(kept + duplicates, kept, duplicates, 0, 0, 0);
  }

  @Override
  public void close() {
    try {
      bits.close();
    } catch (IOException e) {
      // read-only by now: nothing to lose
    }
  }
}
