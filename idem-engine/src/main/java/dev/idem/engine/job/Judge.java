package dev.idem.engine.job;

import dev.idem.engine.DedupStats;
import dev.idem.engine.Verdict;
import dev.idem.engine.records.RecordBatch;
import dev.idem.engine.state.WindowCheckpoint;
import dev.idem.engine.store.StateStore;
import java.io.IOException;

/**
 * Decides each record's fate, and makes the state behind those decisions part of each checkpoint:
 * the tiers of "ever seen" dedup ({@link TieredJudge}) or the windows of "seen in the last W"
 * ({@link WindowJudge}).
 */
interface Judge extends AutoCloseable {

  /** Called once per batch before its verdicts: a judge may look its keys up together. */
  default void prepare(RecordBatch batch) throws IOException {}

  /**
   * Whether {@link #prepare} decides the whole batch ahead of {@link #judge}: then checkpoints fall
   * between batches, where the state holds exactly what was handed out.
   */
  default boolean decidesAhead() {
    return false;
  }

  /**
   * Whether judging reads what checkpoints write (the RocksDB exact tier looks kept keys up in
   * {@code seen}): then a checkpoint must land before the job reads on, rather than in the
   * background.
   */
  default boolean readsItsCheckpoints() {
    return false;
  }

  /** The verdict on record {@code i} of {@code batch} (a usable record). */
  Verdict judge(RecordBatch batch, int i);

  /**
   * Adds what changed since the last checkpoint to {@code commit}, the batch of checkpoint {@code
   * sequence}; may write files (a filter snapshot) that the commit will point at. A {@code
   * complete} checkpoint ends the job: nothing will resume from it, so it needs no snapshot.
   */
  void checkpoint(long sequence, StateStore.Commit commit, boolean complete) throws IOException;

  /** Called after the commit of a checkpoint was written: clean what it made obsolete. */
  default void committed() throws IOException {}

  /** This run's counts. */
  DedupStats stats();

  /** The newest delta level over the snapshot in effect (0: none). */
  default long deltaSequence() {
    return 0;
  }

  /** The filter snapshot in effect (0: none). */
  default long snapshotSequence() {
    return 0;
  }

  /** The window state to record in the checkpoint, or {@code null} (no windows). */
  default WindowCheckpoint window(String lateFile, long lateBytes) {
    return null;
  }

  @Override
  void close();
}
