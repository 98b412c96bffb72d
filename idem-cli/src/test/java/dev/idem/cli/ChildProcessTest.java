package dev.idem.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The real {@code main}: exit statuses through System.exit, and answers through a live pipe. */
class ChildProcessTest {

  @TempDir Path dir;

  static Process start(String... args) throws IOException {
    return startWithHeap("512m", args);
  }

  /** {@link #start} with a given maximum heap ({@code -Xmx}), for memory budget tests. */
  static Process startWithHeap(String maxHeap, String... args) throws IOException {
    return builder(maxHeap, args).start();
  }

  /** The child's process, not started: stderr to a pipe, the rest to be redirected at will. */
  static ProcessBuilder builder(String maxHeap, String... args) {
    return builder(maxHeap, List.of(), args);
  }

  /** {@link #builder(String, String...)} with more JVM options ({@code -Dname=value}). */
  static ProcessBuilder builder(String maxHeap, List<String> jvmOptions, String... args) {
    // quick-starting JVMs: these children live for a second or two, often less
    List<String> command =
        new ArrayList<>(
            List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-XX:TieredStopAtLevel=1",
                "-XX:+UseSerialGC",
                "-Xmx" + maxHeap,
                "-Xshare:auto"));
    command.addAll(jvmOptions);
    command.addAll(
        List.of("-cp", System.getProperty("java.class.path"), IdemCommand.class.getName()));
    command.addAll(List.of(args));
    return new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.PIPE);
  }

  @Test
  void queryAnswersEachKeyBeforeTheNextArrives() throws Exception {
    Path idx = dir.resolve("f.idx");
    Process build = start("filter", "build", "-n", "100", "-o", idx.toString());
    try (OutputStream in = build.getOutputStream()) {
      in.write("alpha\nbeta\n".getBytes(StandardCharsets.UTF_8));
    }
    assertThat(build.waitFor(60, TimeUnit.SECONDS)).isTrue();
    assertThat(build.exitValue()).isZero();

    Process query = start("filter", "query", idx.toString());
    ExecutorService reader = Executors.newSingleThreadExecutor();
    OutputStream in = query.getOutputStream();
    BufferedReader out =
        new BufferedReader(new InputStreamReader(query.getInputStream(), StandardCharsets.UTF_8));
    try {
      for (String key : new String[] {"alpha", "gamma", "beta"}) {
        in.write((key + "\n").getBytes(StandardCharsets.UTF_8));
        in.flush();
        // stdin stays open: the answer must come without waiting for more input
        Future<String> line = reader.submit(out::readLine);
        assertThat(line.get(30, TimeUnit.SECONDS))
            .isEqualTo(key + "\t" + (key.equals("gamma") ? "new" : "maybe"));
      }
      in.close();
    } catch (Exception | AssertionError e) {
      query.destroyForcibly(); // unblocks the reader thread, which holds the stream's lock
      throw e;
    } finally {
      reader.shutdownNow();
    }
    assertThat(query.waitFor(60, TimeUnit.SECONDS)).isTrue();
    assertThat(query.exitValue()).isZero();
  }

  @Test
  void exitStatusesReachTheShell() throws Exception {
    Process usage = start("filter", "build");
    assertThat(usage.waitFor(60, TimeUnit.SECONDS)).isTrue();
    assertThat(usage.exitValue()).isEqualTo(2);
    String err = new String(usage.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(err).startsWith("idem filter build: Missing required option");

    Process failure = start("filter", "stats", dir.resolve("missing.idx").toString());
    assertThat(failure.waitFor(60, TimeUnit.SECONDS)).isTrue();
    assertThat(failure.exitValue()).isEqualTo(1);
  }

  @Test
  void tooSmallAHeapIsAOneLineErrorNotAStackTrace() throws Exception {
    Path in = dir.resolve("in.txt");
    StringBuilder lines = new StringBuilder();
    for (int i = 0; i < 120_000; i++) {
      lines.append(String.format("%08d", i).repeat(25)).append('\n');
    }
    Files.writeString(in, lines);
    String out = dir.resolve("out.txt").toString();
    // sized up front (filter, then exact set), and the heap filling up during the run
    assertOneLineMemoryError(
        startWithHeap(
            "64m",
            "dedup",
            "--whole-line",
            "--expected",
            "50000000",
            "--filter",
            "blocked",
            "--exact-store",
            "memory",
            "-o",
            out,
            in.toString()),
        "a filter of 92.7 MiB");
    assertOneLineMemoryError(
        startWithHeap(
            "64m",
            "dedup",
            "--whole-line",
            "--expected",
            "50000000",
            "--fpp",
            "0.5",
            "--exact-store",
            "memory",
            "-o",
            out,
            in.toString()),
        "a fingerprint set of");
    assertOneLineMemoryError(
        startWithHeap(
            "16m",
            "dedup",
            "--whole-line",
            "--key-mode",
            "full",
            "--expected",
            "1000",
            "--exact-store",
            "memory",
            "-o",
            out,
            in.toString()),
        "out of memory (JVM heap limit");
  }

  private static void assertOneLineMemoryError(Process p, String what) throws Exception {
    // an Error on the reader thread once left the main thread waiting for input forever
    boolean exited = p.waitFor(60, TimeUnit.SECONDS);
    if (!exited) {
      p.destroyForcibly();
    }
    assertThat(exited).as("exited").isTrue();
    String err = new String(p.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(p.exitValue()).as(err).isEqualTo(1);
    assertThat(err.strip()).contains(what).contains("-Xmx").doesNotContain("\n", "\tat ");
  }
}
