package dev.idem.engine.job;

/**
 * Tells a {@link DedupJob.Listener} how far a {@link DedupJob.Step} is, at most twice a second; a
 * step with nothing to do (a total of 0) says nothing.
 */
final class StepProgress {

  private final DedupJob.Listener listener;
  private final DedupJob.Step step;
  private final long total;
  private long last = System.nanoTime();

  /** Starts reporting a step of which {@code done} of {@code total} was done by an earlier run. */
  StepProgress(DedupJob.Listener listener, DedupJob.Step step, long done, long total) {
    this.listener = listener;
    this.step = step;
    this.total = total;
    if (total > 0) {
      listener.step(step, done, total);
    }
  }

  /** Reports {@code done} if the last report is old enough. */
  void at(long done) {
    long now = System.nanoTime();
    if (total > 0 && now - last >= DedupJob.PROGRESS_MILLIS * 1_000_000) {
      last = now;
      listener.step(step, Math.min(done, total), total);
    }
  }

  /** Reports the step's end. */
  void end() {
    if (total > 0) {
      listener.step(step, total, total);
    }
  }
}
