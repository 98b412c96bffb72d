package dev.idem.cli;

import dev.idem.core.ByteSize;
import dev.idem.engine.run.JobListener;
import dev.idem.engine.sort.SortDedupResult;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Locale;

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
  private final ProgressDisplay display;

  SortDedupSummary(Io io, OutputOptions output, Path runs) {
    this.io = io;
    this.quiet = output.quiet;
    this.output = output;
    this.runs = runs;
    this.display = new ProgressDisplay(io, "idem sort-dedup", quiet);
  }

  /** The job's listener: bars on a terminal, warnings and notes. */
  JobListener listener() {
    return display;
  }

  /** Stops the bar without a summary (the job failed, or a phase ended). */
  void abandon() {
    display.close();
  }

  void finish(SortDedupResult r) throws IOException {
    abandon();
    output.writeStats(io, r);
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
}
