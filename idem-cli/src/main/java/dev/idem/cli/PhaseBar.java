package dev.idem.cli;

import java.time.Duration;
import me.tongfei.progressbar.ProgressBar;
import me.tongfei.progressbar.ProgressBarBuilder;
import me.tongfei.progressbar.ProgressBarStyle;

/**
 * The progress bar of a job's current phase, on a terminal: one bar at a time, a new one when the
 * phase changes, so each phase has its own speed and ETA; each drawn as a {@link BarLine}, which
 * fits the terminal's width.
 */
final class PhaseBar {

  private ProgressBar bar;
  private String phase;

  /**
   * The bar of {@code phase}, started when the phase is new: at {@code done} (work an earlier run
   * did, or that took no time, is not counted in the speed and ETA) of {@code max}, -1 if unknown.
   */
  ProgressBar of(String phase, long done, long max, String unit, long unitSize) {
    if (bar == null || !phase.equals(this.phase)) {
      close();
      this.phase = phase;
      bar =
          new ProgressBarBuilder()
              .setTaskName(phase)
              .setInitialMax(max)
              .startsFrom(done, Duration.ZERO)
              .setStyle(ProgressBarStyle.ASCII)
              .setUnit(unit, unitSize)
              .setRenderer(new BarLine(unit, unitSize))
              .setConsumer(Terminal.progressBarConsumer())
              .build();
    }
    return bar;
  }

  /** Ends the current bar, drawn where it stands. */
  void close() {
    if (bar != null) {
      bar.close();
      bar = null;
    }
  }
}
