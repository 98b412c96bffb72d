package dev.idem.cli;

import dev.idem.core.ByteSize;
import dev.idem.engine.sort.SortDedupJob;
import dev.idem.engine.sort.SortDedupResult;
import java.io.IOException;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import me.tongfei.progressbar.ProgressBar;

/**
 * What {@code idem sort-dedup} tells the user: on a terminal, one progress bar per phase (reading:
 * bytes and runs written; each merge pass: entries read), then a summary on standard error and,
 * when asked, the same as JSON.
 */
final class SortDedupSummary {

  private final Io io;
  private final boolean quiet;
  private final OutputOptions output;
  private final Path runs;
  private final boolean drawProgress;
  private final PhaseBar bar = new PhaseBar();

  SortDedupSummary(Io io, OutputOptions output, Path runs) {
    this.io = io;
    this.quiet = output.quiet;
    this.output = output;
    this.runs = runs;
    this.drawProgress = !quiet && io.err() == System.err && Terminal.stderrIsTerminal();
  }

  SortDedupJob.Listener listener() {
    return new SortDedupJob.Listener() {
      @Override
      public void reading(long done, long total, long records, int runs) {
        if (!drawProgress) {
          return;
        }
        ProgressBar b = bar.of("read", 0, total > 0 ? total : -1, " MiB", 1 << 20);
        b.stepTo(total > 0 ? Math.min(done, total) : done);
        b.setExtraMessage(String.format(Locale.ROOT, " | %,d rec, %,d runs", records, runs));
      }

      @Override
      public void merging(int pass, String by, int runs, long done, long total) {
        if (!drawProgress) {
          return;
        }
        ProgressBar b = bar.of("merge " + pass + " by " + by, 0, Math.max(1, total), " rec", 1);
        b.stepTo(Math.min(done, Math.max(1, total)));
        b.setExtraMessage(String.format(Locale.ROOT, " | %,d runs", runs));
      }

      @Override
      public void warning(String message) {
        io.err().println("idem sort-dedup: warning: " + message);
      }
    };
  }

  /** Stops the bar without a summary (the job failed, or a phase ended). */
  void abandon() {
    bar.close();
  }

  void finish(SortDedupResult r) throws IOException {
    abandon();
    output.writeStats(io, asMap(r));
    if (quiet) {
      return;
    }
    io.err()
        .printf(
            Locale.ROOT,
            "idem sort-dedup: %,d records, %,d kept (%.1f %%), %,d "
                + "duplicates removed, %,d bad records%s%n",
            r.records(),
            r.kept(),
            r.records() == 0 ? 0.0 : 100.0 * r.kept() / r.records(),
            r.duplicates(),
            r.badRecords(),
            r.blankLines() > 0
                ? String.format(Locale.ROOT, ", %,d blank lines skipped", r.blankLines())
                : "");
    if (r.runs() == 0) {
      io.err()
          .printf(
              Locale.ROOT,
              "  memory %s: the input fit in memory, no sorted runs written%n",
              ByteSize.format(r.memoryBytes()));
    } else {
      io.err()
          .printf(
              Locale.ROOT,
              "  memory %s: %,d sorted runs, %d merge passes (%d by key; "
                  + "fan-in %d); %s of %s runs written to %s (at most %s at once)%n",
              ByteSize.format(r.memoryBytes()),
              r.runs(),
              r.mergePasses(),
              r.keyMergePasses(),
              r.fanIn(),
              ByteSize.format(r.tempBytesWritten()),
              r.runsCompressed() ? "LZ4" : "uncompressed",
              runs != null ? runs : System.getProperty("java.io.tmpdir"),
              ByteSize.format(r.tempPeakBytes()));
    }
    double seconds = r.elapsedMillis() / 1000.0;
    io.err()
        .printf(
            Locale.ROOT,
            "  %.1f s (reading %.1f s), %,.0f records/s%n",
            seconds,
            r.readMillis() / 1000.0,
            r.records() / Math.max(seconds, 1e-3));
  }

  private static Map<String, Object> asMap(SortDedupResult r) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("records", r.records());
    m.put("kept", r.kept());
    m.put("duplicates", r.duplicates());
    m.put("bad_records", r.badRecords());
    m.put("blank_lines", r.blankLines());
    m.put("runs", r.runs());
    m.put("merge_passes", r.mergePasses());
    m.put("merge_passes_by_key", r.keyMergePasses());
    m.put("fan_in", r.fanIn());
    m.put("memory_bytes", r.memoryBytes());
    m.put("temp_bytes_written", r.tempBytesWritten());
    m.put("temp_peak_bytes", r.tempPeakBytes());
    m.put("runs_compressed", r.runsCompressed());
    m.put("output_bytes", r.outputBytes());
    m.put("read_millis", r.readMillis());
    m.put("elapsed_millis", r.elapsedMillis());
    m.put("warnings", r.warnings());
    return m;
  }
}
