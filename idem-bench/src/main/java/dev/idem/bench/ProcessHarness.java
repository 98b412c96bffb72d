package dev.idem.bench;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;
import java.util.stream.Stream;
import redis.clients.jedis.Jedis;

/**
 * Runs one child process and watches it from outside, the same way for every contender: wall time
 * from spawn to exit, CPU time (user + system, all threads) and peak resident set size, the time
 * until it is "ready" (its output first grew, or it printed a line), and a SIGKILL when a condition
 * holds (its output reached a size, a line was printed, a file appeared, a timeout).
 *
 * <p>Peak RSS and CPU come from GNU time ({@code /usr/bin/time -f "%M %U %S"}, the rusage of the
 * command, killed or not) where it is installed; else from polling {@code /proc} every 5 ms (the
 * largest {@code VmHWM} of the process and its descendants, and their CPU ticks), which misses what
 * a process does in its last few milliseconds.
 */
final class ProcessHarness {

  static final Path GNU_TIME = Path.of("/usr/bin/time");

  private ProcessHarness() {}

  /** When the child counts as ready, and when it is killed. Nulls: never. */
  record Watch(
      BooleanSupplier ready,
      String readyLine,
      BooleanSupplier kill,
      String killLine,
      long timeoutSeconds) {

    static final Watch NONE = new Watch(null, null, null, null, 0);

    Watch readyWhen(BooleanSupplier condition) {
      return new Watch(condition, readyLine, kill, killLine, timeoutSeconds);
    }

    /** Ready when the child prints a line starting with {@code prefix} to its standard output. */
    Watch readyOnLine(String prefix) {
      return new Watch(ready, prefix, kill, killLine, timeoutSeconds);
    }

    Watch killWhen(BooleanSupplier condition) {
      return new Watch(ready, readyLine, condition, killLine, timeoutSeconds);
    }

    Watch killOnLine(String prefix) {
      return new Watch(ready, readyLine, kill, prefix, timeoutSeconds);
    }

    Watch timeout(long seconds) {
      return new Watch(ready, readyLine, kill, killLine, seconds);
    }

    /** True once {@code file} is larger than {@code bytes}. */
    static BooleanSupplier grows(Path file, long bytes) {
      return () -> size(file) > bytes;
    }

    /** True once {@code file} holds at least {@code bytes}. */
    static BooleanSupplier reaches(Path file, long bytes) {
      return () -> size(file) >= bytes;
    }

    static BooleanSupplier exists(Path file) {
      return () -> Files.exists(file);
    }
  }

  /** What one process did: times in seconds (-1: unknown or never), RSS in KiB. */
  record Outcome(
      int exit,
      double wallSeconds,
      double cpuSeconds,
      long rssKiB,
      double readySeconds,
      boolean killed,
      List<String> stdout,
      String stderrTail) {

    boolean ok() {
      return exit == 0 && !killed;
    }

    /** The line of its stderr that names the error (an exception's), else its last line. */
    String error() {
      List<String> lines = stderrTail.lines().filter(l -> !l.isBlank()).toList();
      return lines.stream()
          .filter(l -> l.contains("rror") || l.contains("xception"))
          .reduce((first, last) -> last)
          .orElse(lines.isEmpty() ? "" : lines.get(lines.size() - 1))
          .strip();
    }

    /** The value of {@code name=value} in the stdout lines (the last one wins), or null. */
    String stat(String name) {
      String value = null;
      for (String line : stdout) {
        for (String word : line.split("\\s+")) {
          if (word.startsWith(name + "=")) {
            value = word.substring(name.length() + 1);
          }
        }
      }
      return value;
    }
  }

  static Outcome run(Contender c, Watch w, Path logDir) throws IOException, InterruptedException {
    return run(c, w, logDir, Files.isExecutable(GNU_TIME));
  }

  static Outcome run(Contender c, Watch w, Path logDir, boolean gnuTime)
      throws IOException, InterruptedException {
    Files.createDirectories(logDir);
    String stem = c.name().replaceAll("[^A-Za-z0-9.]+", "-");
    Path timeFile = Files.createTempFile(logDir, stem, ".time");
    Path errFile = logDir.resolve(stem + ".stderr");
    List<String> cmd = new ArrayList<>();
    if (gnuTime) {
      cmd.addAll(List.of(GNU_TIME.toString(), "-f", "%M %U %S", "-o", timeFile.toString()));
    }
    cmd.addAll(c.command());
    ProcessBuilder pb = new ProcessBuilder(cmd).redirectError(errFile.toFile());
    pb.environment().putAll(c.env());
    if (c.stdout() != null) {
      pb.redirectOutput(c.stdout().toFile());
    }
    long t0 = System.nanoTime();
    Process p = pb.start();
    AtomicLong ready = new AtomicLong(-1);
    AtomicBoolean killed = new AtomicBoolean();
    List<String> lines = Collections.synchronizedList(new ArrayList<>());
    Thread reader = null;
    if (c.stdout() == null) {
      reader = new Thread(() -> readLines(p, gnuTime, w, t0, ready, killed, lines), "child-stdout");
      reader.setDaemon(true);
      reader.start();
    }
    ProcSampler proc = gnuTime ? null : new ProcSampler();
    long timeoutNanos = TimeUnit.SECONDS.toNanos(w.timeoutSeconds());
    if (w.ready() == null && w.kill() == null && proc == null) {
      // nothing to poll: wait without waking up (a poller costs a few % of a core)
      if (timeoutNanos > 0 && !p.waitFor(timeoutNanos, TimeUnit.NANOSECONDS)) {
        killed.set(true);
        kill(p, gnuTime);
      }
    }
    for (int tick = 0; p.isAlive(); tick++) {
      if (w.ready() != null && ready.get() < 0 && w.ready().getAsBoolean()) {
        ready.compareAndSet(-1, System.nanoTime() - t0);
      }
      boolean timedOut = timeoutNanos > 0 && System.nanoTime() - t0 >= timeoutNanos;
      if (!killed.get() && (timedOut || (w.kill() != null && w.kill().getAsBoolean()))) {
        killed.set(true);
        kill(p, gnuTime);
      }
      if (proc != null && tick % 5 == 0) {
        proc.sample(p);
      }
      // sleep, not spin: on 2 cores a spinning watcher would slow the child down
      Thread.sleep(1);
    }
    p.waitFor();
    long wall = System.nanoTime() - t0;
    if (reader != null) {
      reader.join(10_000);
    }
    if (w.ready() != null && ready.get() < 0 && w.ready().getAsBoolean()) {
      ready.set(wall); // it came out with the last flush
    }
    long rss = proc == null ? -1 : proc.rssKiB;
    double cpu = proc == null ? -1 : proc.cpuSeconds();
    if (gnuTime) {
      List<String> t = Files.readAllLines(timeFile);
      String[] f = t.isEmpty() ? new String[0] : t.get(t.size() - 1).trim().split("\\s+");
      if (f.length == 3 && f[0].matches("\\d+")) {
        rss = Long.parseLong(f[0]);
        cpu = Double.parseDouble(f[1]) + Double.parseDouble(f[2]);
      }
    }
    Files.deleteIfExists(timeFile);
    String err = Files.exists(errFile) ? Files.readString(errFile, StandardCharsets.UTF_8) : "";
    return new Outcome(
        p.exitValue(),
        wall / 1e9,
        cpu,
        rss,
        ready.get() < 0 ? -1 : ready.get() / 1e9,
        killed.get(),
        List.copyOf(lines),
        err.substring(Math.max(0, err.length() - 2000)).strip());
  }

  private static void readLines(
      Process p,
      boolean underTime,
      Watch w,
      long t0,
      AtomicLong ready,
      AtomicBoolean killed,
      List<String> lines) {
    try (BufferedReader r =
        new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
      for (String line; (line = r.readLine()) != null; ) {
        if (w.readyLine() != null && line.startsWith(w.readyLine())) {
          ready.compareAndSet(-1, System.nanoTime() - t0);
        }
        if (w.killLine() != null && line.startsWith(w.killLine()) && !killed.getAndSet(true)) {
          kill(p, underTime);
        }
        if (lines.size() < 10_000) {
          lines.add(line);
        }
      }
    } catch (IOException e) {
      // the child is gone: nothing more to read
    }
  }

  /**
   * SIGKILL to the command and what it started. Under GNU time, to time's descendants only, so that
   * time still reports their rusage (and is killed too if it has not exited 5 s later).
   */
  static void kill(Process p, boolean underTime) {
    List<ProcessHandle> descendants = p.descendants().toList();
    if (!underTime) {
      p.destroyForcibly();
    }
    descendants.forEach(ProcessHandle::destroyForcibly);
    try {
      if (underTime && !p.waitFor(5, TimeUnit.SECONDS)) {
        p.destroyForcibly();
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      p.destroyForcibly();
    }
  }

  static long size(Path file) {
    try {
      return Files.size(file);
    } catch (IOException e) {
      return 0; // not there yet
    }
  }

  /** Peak RSS and CPU ticks of a process tree, from /proc. */
  static final class ProcSampler {
    private static final double TICK = 0.01; // USER_HZ is 100 on Linux
    private final Map<Long, Long> ticks = new HashMap<>();
    long rssKiB;

    void sample(Process p) {
      Stream.concat(Stream.of(p.toHandle()), p.descendants()).forEach(this::sample);
    }

    private void sample(ProcessHandle h) {
      try {
        for (String line : Files.readAllLines(Path.of("/proc/" + h.pid() + "/status"))) {
          if (line.startsWith("VmHWM:")) {
            rssKiB = Math.max(rssKiB, Long.parseLong(line.replaceAll("\\D", "")));
          }
        }
        String stat = Files.readString(Path.of("/proc/" + h.pid() + "/stat"));
        String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
        ticks.put(h.pid(), Long.parseLong(f[11]) + Long.parseLong(f[12]));
      } catch (IOException | UncheckedIOException | NumberFormatException e) {
        // exited between listing and reading
      }
    }

    double cpuSeconds() {
      return ticks.values().stream().mapToLong(Long::longValue).sum() * TICK;
    }
  }

  /**
   * A redis-server of the run's own on a free loopback port, without persistence unless asked;
   * started from {@code dir/dump.rdb} when that file is there.
   */
  static final class Redis implements AutoCloseable {
    final int port;
    private final Process process;

    private Redis(int port, Process process) {
      this.port = port;
      this.process = process;
    }

    static boolean available() {
      return Contender.onPath("redis-server");
    }

    static Redis start(Path dir) throws IOException, InterruptedException {
      Files.createDirectories(dir);
      int port;
      try (ServerSocket s = new ServerSocket(0)) {
        port = s.getLocalPort();
      }
      Process p =
          new ProcessBuilder(
                  "redis-server",
                  "--port",
                  Integer.toString(port),
                  "--bind",
                  "127.0.0.1",
                  "--dir",
                  dir.toString(),
                  "--dbfilename",
                  "dump.rdb",
                  "--save",
                  "",
                  "--appendonly",
                  "no",
                  "--protected-mode",
                  "no")
              .redirectErrorStream(true)
              .redirectOutput(dir.resolve("redis.log").toFile())
              .start();
      Redis r = new Redis(port, p);
      for (int i = 0; i < 200; i++) {
        try (Jedis j = r.client()) {
          if (j.ping().equals("PONG")) {
            return r;
          }
        } catch (RuntimeException e) {
          Thread.sleep(50); // not listening yet, or still loading its data
        }
      }
      r.close();
      throw new IOException("redis-server did not answer on port " + port);
    }

    Jedis client() {
      return new Jedis("127.0.0.1", port, 60_000);
    }

    /** Writes dump.rdb now. */
    void save() {
      try (Jedis j = client()) {
        j.save();
      }
    }

    /** The server's peak RSS so far. */
    long peakRssKiB() {
      ProcSampler s = new ProcSampler();
      s.sample(process.toHandle());
      return s.rssKiB;
    }

    @Override
    public void close() {
      process.destroy();
      try {
        if (!process.waitFor(10, TimeUnit.SECONDS)) {
          process.destroyForcibly().waitFor();
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        process.destroyForcibly();
      }
    }
  }
}
