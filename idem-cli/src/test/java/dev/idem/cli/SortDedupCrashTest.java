package dev.idem.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code idem sort-dedup --state} in a child process, killed with SIGKILL at random moments (while
 * reading, spilling runs, merging by key and by position, writing the output) and rerun with the
 * same command until it finishes: the output equals an uninterrupted run's byte for byte, and the
 * state's runs never pile up. The budget of 1 MiB makes dozens of runs and several merge passes. CI
 * runs 20 kills in input order and 10 in key order; raise {@code KILLS} by hand for a soak.
 */
class SortDedupCrashTest {

  private static final int RECORDS = 150_000;
  private static final int KILLS = 20;

  @TempDir static Path dir;
  private static DedupInput data;
  private static Path input;

  @BeforeAll
  static void generate() throws IOException {
    data = DedupInput.generate(RECORDS, 20261203L);
    input = dir.resolve("events.jsonl");
    Files.write(input, data.input);
  }

  private static List<String> command(Path state, Path out, String... extra) {
    List<String> args =
        new ArrayList<>(
            List.of(
                "sort-dedup",
                "--key",
                "id",
                "--memory",
                "1m",
                "--state",
                state.toString(),
                "-o",
                out.toString(),
                "--quiet"));
    args.addAll(List.of(extra));
    args.add(input.toString());
    return args;
  }

  @Test
  void inputOrderKilledTwentyTimesWritesTheFirstOfEachKeyInInputOrder() throws Exception {
    Path once = dir.resolve("once.jsonl");
    long full = runToEnd(command(dir.resolve("once-state"), once));
    assertThat(Files.readAllBytes(once)).isEqualTo(data.expected);
    assertThat(killAndResume(full, "input", KILLS)).isEqualTo(data.expected);
  }

  @Test
  void keyOrderKilledTenTimesWritesWhatAnUninterruptedRunWrites() throws Exception {
    Path once = dir.resolve("key-once.jsonl");
    long full = runToEnd(command(dir.resolve("key-once-state"), once, "--order", "key"));
    byte[] uninterrupted = Files.readAllBytes(once);
    assertThat(uninterrupted.length).isEqualTo(data.expected.length);
    assertThat(killAndResume(full, "key", KILLS / 2, "--order", "key")).isEqualTo(uninterrupted);
  }

  @Test
  void aFinishedStateIsNotRunAgainAndAnotherCommandIsRefused() throws Exception {
    Path state = dir.resolve("done-state");
    Path out = dir.resolve("done.jsonl");
    runToEnd(command(state, out));
    long written = Files.getLastModifiedTime(out).toMillis();
    Process again = ChildProcessTest.start(command(state, out).toArray(String[]::new));
    String err = stderr(again);
    assertThat(again.exitValue()).as(err).isZero();
    assertThat(err).contains("holds a finished job");
    assertThat(Files.getLastModifiedTime(out).toMillis()).isEqualTo(written);
    Process other =
        ChildProcessTest.start(command(state, out, "--keep", "last").toArray(String[]::new));
    String refused = stderr(other);
    assertThat(other.exitValue()).isEqualTo(2);
    assertThat(refused).contains("the state of another sort-dedup").contains("keep was FIRST");
  }

  /**
   * Kills runs at random moments until {@code kills} kills interrupted a live job, each round
   * resuming its own state to the end; returns the last round's output, after checking that every
   * round wrote the same.
   */
  private byte[] killAndResume(long fullMillis, String name, int kills, String... extra)
      throws Exception {
    Random random = new Random(name.hashCode());
    int killed = 0;
    long largestRuns = 0;
    byte[] first = null;
    for (int round = 0; killed < kills; round++) {
      Path state = dir.resolve(name + "-state-" + round);
      Path out = dir.resolve(name + "-out-" + round + ".jsonl");
      List<String> args = command(state, out, extra);
      while (true) {
        Process p = ChildProcessTest.start(args.toArray(String[]::new));
        long delay =
            killed >= kills
                ? TimeUnit.MINUTES.toMillis(5)
                : 30 + (long) (random.nextDouble() * fullMillis); // from JVM start to the end
        if (p.waitFor(delay, TimeUnit.MILLISECONDS)) {
          assertThat(p.exitValue()).as(stderr(p)).isZero();
          break;
        }
        p.destroyForcibly().waitFor();
        killed++;
        largestRuns = Math.max(largestRuns, runBytes(state));
      }
      byte[] written = Files.readAllBytes(out);
      if (first == null) {
        first = written;
      }
      assertThat(written).as("round %d, after %d kills", round, killed).isEqualTo(first);
    }
    System.err.printf(
        "sort-dedup %s: %d kills (uninterrupted run %d ms), at most %,d bytes of runs%n",
        name, killed, fullMillis, largestRuns);
    assertThat(largestRuns).as("runs seen at a kill").isPositive();
    // the input's runs and one merge in flight at most: never a pile of abandoned ones
    assertThat(largestRuns).isLessThan(3L * data.input.length);
    return first;
  }

  private static long runBytes(Path state) throws IOException {
    Path runs = state.resolve("runs");
    if (!Files.isDirectory(runs)) {
      return 0;
    }
    try (var files = Files.list(runs)) {
      return files.mapToLong(f -> f.toFile().length()).sum();
    }
  }

  /** Runs to the end; returns how long it took. */
  private static long runToEnd(List<String> args) throws Exception {
    long start = System.nanoTime();
    Process p = ChildProcessTest.start(args.toArray(String[]::new));
    String err = stderr(p);
    assertThat(p.exitValue()).as(err).isZero();
    return (System.nanoTime() - start) / 1_000_000;
  }

  private static String stderr(Process p) throws Exception {
    String err = new String(p.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(p.waitFor(5, TimeUnit.MINUTES)).isTrue();
    return err;
  }
}
