package dev.idem.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code idem sort-dedup --state} in a child process, killed with SIGKILL at random moments (while
 * reading, spilling runs, merging by key and by position, writing the output) and rerun with the
 * same command until it finishes: the output equals an uninterrupted run's byte for byte, and the
 * state's runs never pile up. The budget of 1 MiB makes dozens of runs and several merge passes. CI
 * runs {@link #KILLS} kills in input order and half as many in key order.
 */
class SortDedupCrashTest {

  private static final int RECORDS = 150_000;

  /**
   * Random kills: 8 in CI, since KillAtEveryStepTest kills at every named step; {@code
   * -Didem.kills=200} by hand for a long soak.
   */
  private static final int KILLS = Integer.getInteger("idem.kills", 8);

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
    assertThat(refused)
        .contains("differs from the job in")
        .contains("--keep differs: the state has FIRST, this command has LAST");
  }

  @Test
  void aDamagedCheckpointIsReportedNotRestartedOver() throws Exception {
    Path state = Files.createDirectories(dir.resolve("damaged-state"));
    Files.writeString(state.resolve("SORT-DEDUP.json"), "{\"job\": oops");
    Path out = dir.resolve("damaged.jsonl");
    Process p = ChildProcessTest.start(command(state, out).toArray(String[]::new));
    String err = stderr(p);
    assertThat(p.exitValue()).isEqualTo(1);
    assertThat(err).contains("SORT-DEDUP.json: damaged").doesNotContain("REDACTED");
    assertThat(out).doesNotExist();
  }

  /**
   * Kills runs at random moments, from JVM start to the end of a run, until {@code kills} kills
   * interrupted a live job; returns the output, after checking that every round wrote the same.
   */
  private byte[] killAndResume(long fullMillis, String name, int kills, String... extra)
      throws Exception {
    long[] largestRuns = {0};
    byte[][] first = {null};
    KillLoop.run(
        dir,
        "sort-dedup " + name,
        (state, out) -> command(state, out, extra),
        fullMillis,
        1.0,
        kills,
        new KillLoop.Watcher() {
          @Override
          public void killed(Path state) throws IOException {
            largestRuns[0] = Math.max(largestRuns[0], runBytes(state));
          }

          @Override
          public boolean enough() {
            return largestRuns[0] > 0;
          }

          @Override
          public boolean killHere(Path state) throws IOException {
            return runBytes(state) > 0;
          }

          @Override
          public void finished(int round, int killed, Path out) throws IOException {
            byte[] written = Files.readAllBytes(out);
            first[0] = first[0] == null ? written : first[0];
            assertThat(written).as("round %d, after %d kills", round, killed).isEqualTo(first[0]);
          }
        });
    assertThat(largestRuns[0]).as("runs seen at a kill").isPositive();
    // the input's runs and one merge in flight at most: never a pile of abandoned ones
    assertThat(largestRuns[0]).isLessThan(3L * data.input.length);
    return first[0];
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

  private static long runToEnd(List<String> args) throws Exception {
    return KillLoop.runToEnd(args);
  }

  private static String stderr(Process p) throws Exception {
    return KillLoop.stderr(p);
  }
}
