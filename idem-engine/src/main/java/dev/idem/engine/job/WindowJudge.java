package dev.idem.engine.job;

import dev.idem.engine.DedupStats;
import dev.idem.engine.Verdict;
import dev.idem.engine.records.RecordBatch;
import dev.idem.engine.state.WindowCheckpoint;
import dev.idem.engine.store.StateStore;
import dev.idem.engine.window.WindowStats;
import dev.idem.engine.window.WindowedDeduplicator;

/**
 * "Seen in the last W" dedup: a {@link WindowedDeduplicator} decides; checkpoints write the keys
 * kept since the last one into the state's {@code windows} column family and delete the buckets the
 * watermark has passed, so the durable state, like the memory, follows the open windows.
 */
final class WindowJudge implements Judge {

  private final WindowedDeduplicator windows;
  private final boolean processingTime;
  private final WindowStats start;

  WindowJudge(WindowedDeduplicator windows, boolean processingTime, WindowStats start) {
    this.windows = windows;
    this.processingTime = processingTime;
    this.start = start;
  }

  /** Restores a windowed job's state at a checkpoint from the store. */
  static WindowedDeduplicator restore(
      WindowedDeduplicator fresh, StateStore store, WindowCheckpoint saved) {
    if (saved != null) {
      store.forEachWindowEntry((bucket, hi, lo, time) -> fresh.restoreKept(hi, lo, time));
      fresh.restoreClock(saved.maxEventTime(), saved.stats());
    }
    return fresh;
  }

  @Override
  public Verdict judge(RecordBatch b, int i) {
    long t = processingTime ? System.currentTimeMillis() : b.eventTime[i];
    return windows.check(b.fingerprints[2 * i], b.fingerprints[2 * i + 1], t);
  }

  @Override
  public void checkpoint(long sequence, StateStore.Commit commit, boolean complete) {
    windows.drainChanges(
        new WindowedDeduplicator.ChangeSink() {
          @Override
          public void kept(long bucket, long hi, long lo, long time) {
            commit.windowKept(bucket, hi, lo, time);
          }

          @Override
          public void dropped(long bucket) {
            commit.windowDropped(bucket);
          }
        });
  }

  /** Counts of this run: the window counts are cumulative, so the start is subtracted. */
  @Override
  public DedupStats stats() {
    WindowStats s = windows.stats();
    long kept = s.kept() - (start == null ? 0 : start.kept());
    long duplicates = s.duplicates() - (start == null ? 0 : start.duplicates());
    return new DedupStats(kept + duplicates, kept, duplicates, 0, 0, 0);
  }

  @Override
  public WindowCheckpoint window(String lateFile, long lateBytes) {
    return new WindowCheckpoint(windows.maxEventTime(), windows.stats(), lateFile, lateBytes);
  }

  WindowStats windowStats() {
    return windows.stats();
  }

  @Override
  public void close() {}
}
