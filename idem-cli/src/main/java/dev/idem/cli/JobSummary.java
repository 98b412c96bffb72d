package dev.idem.cli;

import dev.idem.core.ByteSize;
import dev.idem.engine.DedupStats;
import dev.idem.engine.MetricsEndpoint;
import dev.idem.engine.job.DedupJob;
import dev.idem.engine.job.JobResult;
import dev.idem.engine.run.JobListener;
import dev.idem.engine.run.PhaseProgress;
import dev.idem.engine.state.Checkpoint;
import dev.idem.engine.state.ExactTierPlacement;
import dev.idem.engine.window.WindowStats;
import java.io.IOException;
import java.util.Locale;

/**
 * What {@code idem dedup} tells the user: on a terminal, a progress bar for each step before the
 * records flow (a resumed job's restore and check, the partitioned method's partition and judge
 * passes) and one for the records (bytes, records/s, kept share, ETA from where this run started),
 * then a summary on standard error and, when asked, the same as JSON.
 */
final class JobSummary {

  private final Io io;
  private final boolean quiet;
  private final OutputOptions output;
  private final long rocksDbCacheBytes;
  private final ProgressDisplay display;

  /** The history the job runs over, or {@code null}. */
  private java.nio.file.Path history;

  JobSummary(Io io, OutputOptions output, long rocksDbCacheBytes) {
    this.io = io;
    this.quiet = output.quiet;
    this.output = output;
    this.rocksDbCacheBytes = rocksDbCacheBytes;
    this.display = new ProgressDisplay(io, "idem dedup", quiet);
  }

  /** The job runs over {@code dir} ({@code --history}), for its wording. */
  void history(java.nio.file.Path dir) {
    this.history = dir;
  }

  /** Where the job is, for a metrics endpoint: updated with the progress, every half second. */
  private volatile long bytesRead;

  private volatile long recordsRead;
  private volatile long recordsKept;
  private volatile long warningCount;

  /** The job's counters, served while it runs. */
  MetricsEndpoint.Builder metrics() {
    return MetricsEndpoint.builder()
        .counter(
            "idem_input_bytes",
            "Input bytes read (as stored: compressed for gzip and zstd)",
            () -> bytesRead)
        .counter("idem_records", "Records read, bad ones included", () -> recordsRead)
        .counter("idem_kept", "Records written to the output", () -> recordsKept)
        .counter("idem_warnings", "Warnings", () -> warningCount);
  }

  /** The job's listener: the display, and the counters the metrics endpoint serves. */
  JobListener listener() {
    return new JobListener() {
      @Override
      public void progress(PhaseProgress p) {
        if (p.phase().equals(DedupJob.DEDUP)) {
          bytesRead = p.done();
          recordsRead = p.count("records");
          recordsKept = p.count("kept");
        }
        display.progress(p);
      }

      @Override
      public void warning(String message) {
        warningCount++;
        display.warning(message);
      }

      @Override
      public void note(String message) {
        display.note(message);
      }
    };
  }

  /**
   * What a job resumable from {@code state} says when a signal stops it: how far it had read (as
   * the last progress report saw it), on a line of its own after a bar.
   */
  String stopped(java.nio.file.Path state) {
    long records = recordsRead;
    return (display.drawsProgress() ? System.lineSeparator() : "")
        + Signals.resumable(
            "idem dedup",
            state,
            records == 0
                ? ""
                : String.format(
                    Locale.ROOT,
                    "after about %,d records (%s of input read)",
                    records,
                    ByteSize.format(bytesRead)));
  }

  /** Stops the bar without a summary (the job failed). */
  void abandon() {
    display.close();
  }

  void finish(JobResult r) throws IOException {
    abandon();
    output.writeStats(io, r);
    if (quiet) {
      return;
    }
    Checkpoint c = r.last();
    DedupStats d = c.stats();
    if (r.alreadyComplete()) {
      io.err()
          .println(
              history != null
                  ? "idem dedup: this run over --history "
                      + history
                      + " is already complete; nothing changed (its output and its keys in the "
                      + "history are final)."
                  : "idem dedup: the job in this --state is already complete; nothing to do "
                      + "(its output is final). Use a new --state directory to run it again.");
    }
    io.err()
        .printf(
            Locale.ROOT,
            "idem dedup: %,d records, %,d kept (%.1f %%), %,d duplicates "
                + "removed, %,d bad records%s%n",
            c.records(),
            d.kept(),
            c.records() == 0 ? 0.0 : 100.0 * d.kept() / c.records(),
            d.duplicates(),
            c.badRecords(),
            c.blankLines() > 0
                ? String.format(Locale.ROOT, ", %,d blank lines skipped", c.blankLines())
                : "");
    if (r.alreadyComplete()) {
      return;
    }
    if (r.window() != null) {
      WindowStats w = r.window();
      io.err()
          .printf(
              Locale.ROOT,
              "  windows: %,d late events; %,d fingerprints held now, %,d "
                  + "at most, in %d open window buckets%n",
              w.late(),
              w.held(),
              w.peakHeld(),
              w.openBuckets());
    } else {
      io.err()
          .printf(
              Locale.ROOT,
              "  mode %s; exact tier %s; filter %s%n",
              mode(r),
              r.exactTier().kind() == ExactTierPlacement.Kind.ROCKSDB
                  ? "rocksdb (block cache " + ByteSize.format(rocksDbCacheBytes) + ")"
                  : r.exactTier(),
              r.filter());
      if (r.exactTier().kind() != ExactTierPlacement.Kind.PARTITIONED) {
        printLookups(d); // the partitioned method looks nothing up: its verdicts were worked out
      }
    }
    if (r.resumed()) {
      io.err()
          .printf(
              Locale.ROOT,
              "  resumed at record %,d; tiers restored in %.2f s (loaded in %.2f s, %,d "
                  + "journaled keys replayed in %.2f s%s)%n",
              r.resumedAtRecord(),
              r.restoreMillis() / 1000.0,
              r.restore().loadMillis() / 1000.0,
              r.restore().journalReplayed(),
              r.restore().replayMillis() / 1000.0,
              r.restore().filterRebuilt() ? "; filter rebuilt from the exact store" : "");
    }
    double seconds = r.elapsedMillis() / 1000.0;
    io.err()
        .printf(
            Locale.ROOT,
            "  %.1f s, %,.0f records/s%n",
            seconds,
            (c.records() - r.resumedAtRecord()) / Math.max(seconds, 1e-3));
  }

  private void printLookups(DedupStats d) {
    io.err()
        .printf(
            Locale.ROOT,
            "  exact-tier lookups %,d: %,d for new keys (%s of new keys), "
                + "%,d confirmed duplicates%s%n",
            d.exactLookups(),
            d.falsePositivesRescued(),
            Percent.of(d.lookupsPerNewKey()),
            d.exactLookups() - d.falsePositivesRescued(),
            d.recentHits() > 0
                ? String.format(
                    Locale.ROOT,
                    "; %,d duplicates settled by the " + "recent cache",
                    d.recentHits())
                : "");
  }

  /** {@code exact} or {@code approximate}, as the command line spells it. */
  private static String mode(JobResult r) {
    return r.mode().name().toLowerCase(Locale.ROOT);
  }
}
