package dev.idem.bench;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * Runs one contender as a child process under {@code /usr/bin/time} and measures what the user
 * would see: wall time from start to exit (JVM start included), peak resident set size, CPU time
 * (user + system, all threads: cores used = CPU time / wall time), and the temporary files it made
 * in its own temporary directory, which is polled while it runs (the largest size each file
 * reached, summed, is the bytes written to temp; the largest total on disk at once is the peak).
 */
final class MeasuredProcess {

  /** What one run measured. */
  record Measurement(
      double seconds,
      long peakRssKiB,
      double cpuSeconds,
      long tempWrittenBytes,
      long tempPeakBytes,
      int exitStatus,
      String stderr) {}

  private static final long POLL_MILLIS = 20;

  private MeasuredProcess() {}

  /**
   * Runs {@code command} with {@code env} added, standard output to {@code stdout}, and polls
   * {@code tmp} (which the command should use for its temporary files) until it exits.
   */
  static Measurement run(
      List<String> command, Map<String, String> env, Path tmp, Path stdout, Path workDir)
      throws IOException, InterruptedException {
    Path timeFile = Files.createTempFile(workDir, "time-", ".txt");
    Path errFile = Files.createTempFile(workDir, "stderr-", ".txt");
    List<String> full = new ArrayList<>(GnuTime.prefix(timeFile));
    full.addAll(command);
    ProcessBuilder pb =
        new ProcessBuilder(full).redirectError(errFile.toFile()).redirectOutput(stdout.toFile());
    pb.environment().putAll(env);
    TempWatcher watcher = new TempWatcher(tmp);
    long t0 = System.nanoTime();
    Process p = pb.start();
    Thread poller =
        new Thread(
            () -> {
              while (p.isAlive()) {
                watcher.poll();
                try {
                  Thread.sleep(POLL_MILLIS);
                } catch (InterruptedException e) {
                  return;
                }
              }
            },
            "tmp-poller");
    poller.setDaemon(true);
    poller.start();
    if (!p.waitFor(4, TimeUnit.HOURS)) {
      p.destroyForcibly();
      throw new IOException("timed out: " + String.join(" ", command));
    }
    double seconds = (System.nanoTime() - t0) / 1e9;
    poller.join();
    GnuTime time = GnuTime.read(timeFile);
    String err = Files.readString(errFile);
    Files.delete(timeFile);
    Files.delete(errFile);
    return new Measurement(
        seconds,
        time.peakRssKiB(),
        time.cpuSeconds(),
        watcher.writtenBytes(),
        watcher.peakBytes,
        p.exitValue(),
        err);
  }

  /** The files under a directory, by path: the largest size each reached, and the peak total. */
  private static final class TempWatcher {
    private final Path dir;
    private final Map<Path, Long> largest = new HashMap<>();
    private long peakBytes;

    TempWatcher(Path dir) {
      this.dir = dir;
    }

    void poll() {
      long total = 0;
      try (Stream<Path> files = Files.walk(dir)) {
        for (Path f : (Iterable<Path>) files::iterator) {
          long size;
          try {
            if (!Files.isRegularFile(f)) {
              continue;
            }
            size = Files.size(f);
          } catch (NoSuchFileException e) {
            continue; // deleted between listing and looking
          }
          total += size;
          largest.merge(f, size, Math::max);
        }
      } catch (IOException | UncheckedIOException e) {
        return; // a directory vanished mid-walk: the next poll sees the new state
      }
      peakBytes = Math.max(peakBytes, total);
    }

    long writtenBytes() {
      return largest.values().stream().mapToLong(Long::longValue).sum();
    }
  }
}
