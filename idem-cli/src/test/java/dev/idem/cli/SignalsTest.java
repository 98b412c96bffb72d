package dev.idem.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.BufferedWriter;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Ctrl-C and {@code kill} on {@code sort-dedup} while it has runs in {@code --tmp}: the process
 * removes them, prints nothing alarming, and exits 130 or 143. A resumable job says where it
 * stopped and that the same command resumes it. Ctrl-C is sent with a progress bar on a terminal (a
 * pseudo-terminal from {@code script}), where the bar's terminal library used to swallow it.
 */
class SignalsTest {

  @TempDir Path dir;
  private Path input;
  private Path tmp;

  @BeforeEach
  void input() throws IOException {
    input = dir.resolve("keys.txt");
    try (BufferedWriter w = Files.newBufferedWriter(input, StandardCharsets.US_ASCII)) {
      for (long i = 0; i < 3_000_000; i++) {
        w.write("k" + (i * 7919) % 2_000_000);
        w.newLine();
      }
    }
    tmp = Files.createDirectories(dir.resolve("tmp"));
  }

  private String[] sortDedup() {
    return new String[] {
      "sort-dedup",
      "--whole-line",
      "--memory",
      "16m",
      "--tmp",
      tmp.toString(),
      "-o",
      dir.resolve("out.txt").toString(),
      input.toString()
    };
  }

  @Test
  void sigtermRemovesTheRunsQuietlyAndExits143() throws Exception {
    Process p = ChildProcessTest.start(sortDedup());
    awaitRuns(() -> true);
    signal("TERM", p.pid());
    String err = KillLoop.stderr(p);
    assertThat(p.exitValue()).isEqualTo(143);
    assertThat(err).doesNotContain("Exception").doesNotContain("No such file");
    assertThat(runDirectories()).isEmpty();
  }

  @Test
  void ctrlCWithAProgressBarOnATerminalRemovesTheRunsAndExits130() throws Exception {
    assumeTrue(OnATerminal.available(), "needs script(1) for a terminal");
    OnATerminal terminal = OnATerminal.start("512m", sortDedup());
    awaitRuns(() -> terminal.shown().contains("%"));
    signal("INT", terminal.jvm().pid());
    assertThat(terminal.script.waitFor(60, TimeUnit.SECONDS)).as("Ctrl-C stops the job").isTrue();
    terminal.awaitEnd();
    String shown = terminal.shown();
    assertThat(shown).doesNotContain("Exception");
    assertThat(terminal.script.exitValue()).isEqualTo(130);
    assertThat(runDirectories()).as("%s", shown).isEmpty();
  }

  @Test
  void ctrlCOnAResumableDedupSaysWhereItStoppedAndThatTheSameCommandResumes() throws Exception {
    Path state = dir.resolve("state");
    String[] command = {
      "dedup",
      "--whole-line",
      "--checkpoint-every",
      "10000",
      "--state",
      state.toString(),
      "-o",
      dir.resolve("unique.txt").toString(),
      input.toString()
    };
    Process p = ChildProcessTest.start(command);
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (!Files.exists(state.resolve("MANIFEST.json")) && System.nanoTime() < deadline) {
      Thread.sleep(20);
    }
    signal("INT", p.pid());
    String err = KillLoop.stderr(p);
    assertThat(p.exitValue()).as(err).isEqualTo(130);
    assertThat(err)
        .contains("idem dedup: stopped")
        .contains(state + " keeps the job's last checkpoint: run the same command to resume")
        .doesNotContain("Exception");
    Cli.Result resumed = Cli.run(command);
    assertThat(resumed.status()).as(resumed.err()).isZero();
    assertThat(Files.readAllLines(dir.resolve("unique.txt"))).hasSize(2_000_000);
  }

  private static void signal(String name, long pid) throws Exception {
    Process kill = new ProcessBuilder("kill", "-" + name, Long.toString(pid)).start();
    assertThat(kill.waitFor(10, TimeUnit.SECONDS) && kill.exitValue() == 0).isTrue();
  }

  /** Waits until the job has written a sorted run and {@code also} holds. */
  private void awaitRuns(BooleanSupplier also) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (System.nanoTime() < deadline) {
      for (Path d : also.getAsBoolean() ? runDirectories() : List.<Path>of()) {
        try (Stream<Path> runs = Files.list(d)) {
          if (runs.anyMatch(r -> r.getFileName().toString().startsWith("run-"))) {
            return;
          }
        }
      }
      Thread.sleep(20);
    }
    throw new AssertionError("no run appeared in " + tmp);
  }

  private List<Path> runDirectories() throws IOException {
    try (Stream<Path> s = Files.list(tmp)) {
      return s.filter(d -> d.getFileName().toString().startsWith("idem-sort-dedup-")).toList();
    }
  }
}
