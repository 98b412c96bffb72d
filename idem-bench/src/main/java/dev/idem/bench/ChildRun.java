package dev.idem.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * One child process of the end-to-end benchmark, watched from outside the same way for every
 * contender: the time from spawning it until its output file first grows beyond a given size (the
 * bytes already there when the previous process died, so "the first new record is out"), its wall
 * time, and its peak RSS and CPU time (user + system) as {@code /usr/bin/time} reports them. It can
 * also be killed with SIGKILL as soon as its output reaches a size.
 */
final class ChildRun {

  /** What one process did, as seen from outside. */
  record Outcome(
      int exitCode,
      double wallSeconds,
      double firstNewOutputSeconds,
      long peakRssKiB,
      double cpuSeconds,
      boolean killed) {

    /** CPU time (user + system, all threads) over wall time; -1 if unknown. */
    double cores() {
      return cpuSeconds < 0 || wallSeconds <= 0 ? -1 : cpuSeconds / wallSeconds;
    }
  }

  private final List<String> command;
  private final Path output;
  private final Path log;
  private Path stdout;
  private Map<String, String> env = Map.of();
  private long timeoutNanos;

  ChildRun(List<String> command, Path output, Path log) {
    this.command = command;
    this.output = output;
    this.log = log;
  }

  /** Sends the child's standard output to {@code file} (for tools that only write there). */
  ChildRun stdoutTo(Path file) {
    this.stdout = file;
    return this;
  }

  ChildRun env(Map<String, String> vars) {
    this.env = vars;
    return this;
  }

  /**
   * Stops the child with SIGKILL once it has run {@code seconds} (&gt; 0; 0: no limit); the outcome
   * is then {@code killed}. Under {@code /usr/bin/time} only the timed command is killed, so time
   * still reports its peak RSS and CPU time up to then.
   */
  ChildRun timeout(long seconds) {
    this.timeoutNanos = seconds * 1_000_000_000L;
    return this;
  }

  /**
   * Runs to the end, or until the output reaches {@code killAtBytes} (&gt; 0), when the process
   * gets SIGKILL. {@code baseBytes}: output size that does not count as new output.
   */
  Outcome run(long baseBytes, long killAtBytes) throws IOException, InterruptedException {
    Path rss = Files.createTempFile(log.getParent(), "rss", ".txt");
    List<String> cmd = new ArrayList<>();
    boolean measured = killAtBytes <= 0;
    if (measured) {
      // time only the runs that finish: /usr/bin/time reports nothing for a child killed under it
      cmd.addAll(GnuTime.prefix(rss));
    }
    cmd.addAll(command);
    // append: the log keeps every process of a chain, the one that failed included
    ProcessBuilder pb =
        new ProcessBuilder(cmd).redirectError(ProcessBuilder.Redirect.appendTo(log.toFile()));
    pb.environment().putAll(env);
    if (stdout != null) {
      pb.redirectOutput(stdout.toFile());
    } else {
      pb.redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()));
    }
    long t0 = System.nanoTime();
    Process p = pb.start();
    long firstNew = -1;
    boolean killed = false;
    while (p.isAlive()) {
      long size = size();
      if (firstNew < 0 && size > baseBytes) {
        firstNew = System.nanoTime() - t0;
      }
      if (killAtBytes > 0 && size >= killAtBytes) {
        p.destroyForcibly(); // SIGKILL on Linux: no shutdown hooks, no flush
        killed = true;
        break;
      }
      if (timeoutNanos > 0 && System.nanoTime() - t0 >= timeoutNanos) {
        // the command under time (and anything it started), then time itself if it was alone
        p.descendants().forEach(ProcessHandle::destroyForcibly);
        if (!measured || !p.waitFor(10, TimeUnit.SECONDS)) {
          p.destroyForcibly();
        }
        killed = true;
        break;
      }
      // sleep, not spin: on a 2-core machine a spinning watcher would slow the child's start
      Thread.sleep(1);
    }
    p.waitFor(10, TimeUnit.MINUTES);
    long wall = System.nanoTime() - t0;
    if (firstNew < 0 && size() > baseBytes) {
      firstNew = wall; // it all came out in the final flush
    }
    GnuTime time = measured ? GnuTime.read(rss) : GnuTime.UNKNOWN;
    Files.deleteIfExists(rss);
    return new Outcome(
        p.exitValue(),
        wall / 1e9,
        firstNew < 0 ? -1 : firstNew / 1e9,
        time.peakRssKiB(),
        time.cpuSeconds(),
        killed);
  }

  private long size() {
    try {
      return Files.size(output);
    } catch (IOException e) {
      return 0; // not created yet
    }
  }
}
