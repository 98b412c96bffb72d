package dev.idem.engine.run;

import java.util.Map;

/**
 * Tells a {@link JobListener} how far a phase is, at most twice a second, and once at its end; a
 * phase with nothing to do (a total of 0) says nothing.
 */
public final class PhaseReporter {

  /** How often a running phase is reported, at most. */
  public static final long PROGRESS_MILLIS = 500;

  private final JobListener listener;
  private final String phase;
  private final PhaseProgress.Unit unit;
  private final long total;
  private long last = System.nanoTime();

  /** Starts reporting a phase of which {@code done} of {@code total} an earlier run did. */
  public PhaseReporter(
      JobListener listener, String phase, PhaseProgress.Unit unit, long done, long total) {
    this.listener = listener;
    this.phase = phase;
    this.unit = unit;
    this.total = total;
    if (total > 0) {
      listener.progress(PhaseProgress.of(phase, unit, done, total));
    }
  }

  /** Reports {@code done} if the last report is old enough. */
  public void at(long done) {
    at(done, Map.of());
  }

  /** Reports {@code done} and {@code counts} if the last report is old enough. */
  public void at(long done, Map<String, Long> counts) {
    long now = System.nanoTime();
    if (total > 0 && now - last >= PROGRESS_MILLIS * 1_000_000) {
      last = now;
      listener.progress(new PhaseProgress(phase, unit, Math.min(done, total), total, counts));
    }
  }

  /** Reports the phase's end. */
  public void end() {
    if (total > 0) {
      listener.progress(PhaseProgress.of(phase, unit, total, total));
    }
  }
}
