package dev.idem.cli;

import dev.idem.engine.run.JobListener;
import dev.idem.engine.run.PhaseProgress;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import me.tongfei.progressbar.ProgressBar;

/**
 * What every command shows while its job runs, from the job's {@link JobListener}: on a terminal, a
 * progress bar per phase (its unit, speed and ETA, and the phase's counts beside it); warnings
 * always, and notes unless {@code -q}, one line each on standard error, named after the command.
 */
class ProgressDisplay implements JobListener {

  private final Io io;
  private final String command;
  private final boolean quiet;
  private final boolean drawProgress;
  private final PhaseBar bar = new PhaseBar();
  private volatile long warnings;

  /**
   * @param command how lines start: {@code "idem dedup"}
   */
  ProgressDisplay(Io io, String command, boolean quiet) {
    this.io = io;
    this.command = command;
    this.quiet = quiet;
    this.drawProgress = !quiet && io.err() == System.err && Terminal.stderrIsTerminal();
  }

  /** Whether bars are drawn (a terminal, and not {@code -q}). */
  boolean drawsProgress() {
    return drawProgress;
  }

  /** The warnings shown so far. */
  long warnings() {
    return warnings;
  }

  @Override
  public void progress(PhaseProgress p) {
    if (!drawProgress) {
      return;
    }
    String unit;
    long unitSize;
    switch (p.unit()) {
      case BYTES -> {
        unit = " MiB";
        unitSize = 1 << 20;
      }
      case CHECKPOINTS -> {
        unit = " ckpt";
        unitSize = 1;
      }
      case PARTITIONS -> {
        unit = " part";
        unitSize = 1;
      }
      case ENTRIES -> {
        unit = " rec";
        unitSize = 1;
      }
      default -> {
        unit = " doc";
        unitSize = 1;
      }
    }
    // an input of unknown size (standard input) has a bar with no end to reach
    long total = p.total() > 0 ? p.total() : -1;
    long done = total > 0 ? Math.min(p.done(), total) : p.done();
    ProgressBar b = bar.of(p.phase(), done, total, unit, unitSize);
    b.stepTo(done);
    if (!p.counts().isEmpty()) {
      b.setExtraMessage(" | " + counts(p.counts())); // the bar puts its speed right before it
    }
  }

  /** {@code 1,234 rec, 56.7% kept} or {@code 1,234 rec, 12 runs}. */
  static String counts(Map<String, Long> counts) {
    List<String> parts = new ArrayList<>();
    long records = counts.getOrDefault("records", -1L);
    counts.forEach(
        (name, value) -> {
          if (name.equals("records")) {
            parts.add(String.format(Locale.ROOT, "%,d rec", value));
          } else if (name.equals("kept") && records >= 0) {
            parts.add(
                String.format(
                    Locale.ROOT, "%.1f%% kept", records == 0 ? 0.0 : 100.0 * value / records));
          } else {
            parts.add(String.format(Locale.ROOT, "%,d %s", value, name));
          }
        });
    return String.join(", ", parts);
  }

  @Override
  public void warning(String message) {
    warnings++;
    io.err().println(command + ": warning: " + message);
  }

  @Override
  public void note(String message) {
    if (!quiet) {
      io.err().println(command + ": " + message);
    }
  }

  /** Ends the current bar, drawn where it stands (before a summary or an error). */
  void close() {
    bar.close();
  }
}
