package dev.idem.cli;

import dev.idem.core.ByteSize;
import dev.idem.engine.DedupStats;
import dev.idem.engine.MetricsEndpoint;
import dev.idem.engine.job.DedupJob;
import dev.idem.engine.job.JobResult;
import dev.idem.engine.state.Checkpoint;
import dev.idem.engine.state.ExactTierPlacement;
import dev.idem.engine.window.WindowStats;
import java.io.IOException;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import me.tongfei.progressbar.ProgressBar;

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
  private final boolean drawProgress;
  private final PhaseBar bar = new PhaseBar();

  JobSummary(Io io, OutputOptions output, long rocksDbCacheBytes) {
    this.io = io;
    this.quiet = output.quiet;
    this.output = output;
    this.rocksDbCacheBytes = rocksDbCacheBytes;
    this.drawProgress = !quiet && io.err() == System.err && Terminal.stderrIsTerminal();
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

  DedupJob.Listener listener() {
    return new DedupJob.Listener() {
      @Override
      public void progress(long done, long total, long records, long kept) {
        bytesRead = done;
        recordsRead = records;
        recordsKept = kept;
        if (!drawProgress) {
          return;
        }
        // standard input has no size: its bar counts what was read, with no end to reach
        ProgressBar b =
            total <= 0
                ? bar.of("dedup", done, -1, " MiB", 1 << 20)
                : bar.of("dedup", Math.min(done, total), total, " MiB", 1 << 20);
        b.stepTo(total <= 0 ? done : Math.min(done, total));
        b.setExtraMessage(
            String.format(
                Locale.ROOT,
                " | %,d rec, %.1f%% kept", // the bar puts its speed right before it
                records,
                records == 0 ? 0.0 : 100.0 * kept / records));
      }

      @Override
      public void step(DedupJob.Step step, long done, long total) {
        if (!drawProgress) {
          return;
        }
        ProgressBar b =
            switch (step) {
              case RESTORE -> bar.of("restore", done, total, " ckpt", 1);
              case CHECK -> bar.of("check", done, total, " MiB", 1 << 20);
              case PARTITION -> bar.of("partition", done, total, " MiB", 1 << 20);
              case JUDGE -> bar.of("judge", done, total, " part", 1);
            };
        b.stepTo(done);
      }

      @Override
      public void warning(String message) {
        warningCount++;
        io.err().println("idem dedup: warning: " + message);
      }

      @Override
      public void note(String message) {
        if (!quiet) {
          io.err().println("idem dedup: " + message);
        }
      }
    };
  }

  /**
   * What a job resumable from {@code state} says when a signal stops it: how far it had read (as
   * the last progress report saw it), on a line of its own after a bar.
   */
  String stopped(java.nio.file.Path state) {
    long records = recordsRead;
    return (drawProgress ? System.lineSeparator() : "")
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
    bar.close();
  }

  void finish(JobResult r) throws IOException {
    abandon();
    Map<String, Object> s = asMap(r);
    output.writeStats(io, s);
    if (quiet) {
      return;
    }
    Checkpoint c = r.last();
    DedupStats d = c.stats();
    if (r.alreadyComplete()) {
      io.err()
          .println(
              "idem dedup: the job in this --state is already complete; nothing to do "
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

  private static Map<String, Object> asMap(JobResult r) {
    Checkpoint c = r.last();
    DedupStats d = c.stats();
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("records", c.records());
    m.put("kept", d.kept());
    m.put("duplicates", d.duplicates());
    m.put("bad_records", c.badRecords());
    m.put("blank_lines", c.blankLines());
    m.put("exact_lookups", d.exactLookups());
    m.put("false_positives_rescued", d.falsePositivesRescued());
    m.put("exact_lookups_per_new_key", d.lookupsPerNewKey());
    m.put("recent_hits", d.recentHits());
    m.put("mode", mode(r));
    m.put("exact_store", r.exactTier().toString());
    m.put("filter", r.filter());
    m.put("filter_bits", r.filterBits());
    m.put("already_complete", r.alreadyComplete());
    m.put("resumed", r.resumed());
    m.put("resumed_at_record", r.resumedAtRecord());
    m.put("checkpoints", c.sequence());
    m.put("restore_millis", r.restoreMillis());
    m.put("first_record_millis", r.firstRecordMillis());
    m.put("elapsed_millis", r.elapsedMillis());
    m.put("restore_load_millis", r.restore().loadMillis());
    m.put("restore_replay_millis", r.restore().replayMillis());
    m.put("journal_replayed", r.restore().journalReplayed());
    m.put("filter_rebuilt", r.restore().filterRebuilt());
    m.put("restore_state_open_millis", r.restore().stateOpenMillis());
    m.put("restore_store_open_millis", r.restore().storeOpenMillis());
    m.put("restore_input_check_millis", r.restore().inputCheckMillis());
    m.put("restore_mapped_in_place", r.restore().mappedInPlace());
    m.put("restore_delta_sequence", r.restore().deltaSequence());
    m.put("output_bytes", c.outputBytes());
    m.put("warnings", r.warnings());
    if (r.window() != null) {
      m.put("late", r.window().late());
      m.put("fingerprints_held", r.window().held());
      m.put("fingerprints_held_peak", r.window().peakHeld());
      m.put("watermark", r.window().watermark());
    }
    return m;
  }

  /** {@code exact} or {@code approximate}, as the command line spells it. */
  private static String mode(JobResult r) {
    return r.mode().name().toLowerCase(Locale.ROOT);
  }
}
