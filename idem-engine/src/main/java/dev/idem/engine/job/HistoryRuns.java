package dev.idem.engine.job;

import dev.idem.engine.run.JobIdentity;
import dev.idem.engine.run.StateFile;
import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;

/**
 * The completed runs of a history, one file each in {@code HISTORY/runs/}: {@code
 * run-NNNNNNNN.json}, the run's last {@link HistoryCheckpoint} in the state encoding, written
 * atomically before the commit that completes the run. The commit token holds only the last run;
 * these files let a completed run started again, days later, be recognised and left alone.
 *
 * <p>A file may exist for a run whose completing commit a crash prevented: the token then says the
 * run is unfinished, and the resume writes the same file again. So a file is trusted only for runs
 * before the token's, or for the token's run once it is complete.
 */
final class HistoryRuns {

  static final String DIRECTORY = "runs";

  private final Path dir;

  HistoryRuns(Path history) {
    this.dir = history.resolve(DIRECTORY);
  }

  /** Records {@code run}, complete, atomically (temporary file, fsync, rename, directory fsync). */
  void record(HistoryCheckpoint run) throws IOException {
    Files.createDirectories(dir);
    StateFile.write(file(run.run()), HistoryCheckpoint.JOB, HistoryCheckpoint.VERSION, run);
  }

  /** Whether {@code run} has its file. */
  boolean recorded(long run) {
    return Files.isRegularFile(file(run));
  }

  /**
   * The completed run, numbered below {@code before}, that {@code identity} is (same inputs, same
   * settings), or {@code null}.
   */
  HistoryCheckpoint find(JobIdentity identity, long before) throws IOException {
    for (HistoryCheckpoint r : all()) {
      if (r.run() < before && r.identity().differencesFrom(identity).isEmpty()) {
        return r;
      }
    }
    return null;
  }

  /** Every recorded run, in run order. */
  List<HistoryCheckpoint> all() throws IOException {
    List<HistoryCheckpoint> runs = new ArrayList<>();
    if (!Files.isDirectory(dir)) {
      return runs;
    }
    try (DirectoryStream<Path> files = Files.newDirectoryStream(dir, "run-*.json")) {
      for (Path f : files) {
        StateFile.Contents c = StateFile.read(f, HistoryCheckpoint.JOB, HistoryCheckpoint.VERSION);
        if (c != null) {
          runs.add(c.as(HistoryCheckpoint.class));
        }
      }
    }
    runs.sort(Comparator.comparingLong(HistoryCheckpoint::run));
    return runs;
  }

  private Path file(long run) {
    return dir.resolve(String.format(Locale.ROOT, "run-%08d.json", run));
  }
}
