package dev.idem.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
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
 * Invariant 4 of docs/DESIGN.md, end to end: the real {@code idem dedup} in a child process, killed
 * with SIGKILL at random moments (in startup, mid-batch, inside checkpoints), then rerun with the
 * same command until it finishes. The final output must equal the reference byte for byte.
 */
class CrashTest {

  private static final int RECORDS = 200_000;

  /**
   * Random kills per case: 5 in CI, since KillAtEveryStepTest and DedupJobProtocolTest kill at
   * every named step; {@code -Didem.kills=200} by hand for a long soak.
   */
  private static final int KILLS = Integer.getInteger("idem.kills", 5);

  @TempDir static Path dir;
  private static DedupInput data;
  private static Path input;

  @BeforeAll
  static void generate() throws IOException {
    data = DedupInput.generate(RECORDS, 20261202L);
    input = dir.resolve("events.jsonl");
    Files.write(input, data.input);
  }

  private static List<String> command(Path state, Path out, String... extra) {
    List<String> args =
        new ArrayList<>(
            List.of(
                "dedup",
                "--key",
                "id",
                "--state",
                state.toString(),
                "-o",
                out.toString(),
                "--checkpoint-every",
                "1000",
                "--quiet"));
    args.addAll(List.of(extra));
    args.add(input.toString());
    return args;
  }

  @Test
  void killedTwentyTimesTheOutputStillEqualsTheReference() throws Exception {
    Path reference = dir.resolve("reference.jsonl");
    long full = runToEnd(command(dir.resolve("ref-state"), reference));
    assertThat(Files.readAllBytes(reference)).isEqualTo(data.expected);
    assertThat(data.distinct).isBetween((int) (RECORDS * 0.65), (int) (RECORDS * 0.75));
    killAndResume(full, "exact", new String[0], data.expected, KILLS);
  }

  /**
   * The partitioned method at a budget that needs six partitions: kills land in the first pass
   * (partition files cut back to a checkpoint), in the judging of partitions, and in the writing
   * pass.
   */
  @Test
  void thePartitionedMethodKilledTwentyTimesStillEqualsTheReference() throws Exception {
    String[] partitioned = {"--exact-store", "partitioned", "--memory", "33m"};
    Path out = dir.resolve("partitioned-once.jsonl");
    Path onceState = dir.resolve("partitioned-once-state");
    long full = runToEnd(command(onceState, out, partitioned));
    assertThat(Files.readAllBytes(out)).isEqualTo(data.expected);
    assertThat(Files.readString(onceState.resolve("MANIFEST.json")))
        .contains("\"exact_store\" : \"partitioned\"");
    killAndResume(full, "partitioned", partitioned, data.expected, KILLS);
  }

  @Test
  void aTinyFilterMakesManyFalsePositivesAndTheExactTierRescuesEveryOne() throws Exception {
    String[] tiny = {"--expected", "2000", "--filter", "blocked", "--exact-store", "rocksdb"};
    Path out = dir.resolve("tiny-once.jsonl");
    long full = runToEnd(command(dir.resolve("tiny-once-state"), out, tiny));
    assertThat(Files.readAllBytes(out)).isEqualTo(data.expected);
    killAndResume(full, "tiny", tiny, data.expected, KILLS / 2);
  }

  @Test
  void approximateModeResumesToTheSameOutputAsAnUninterruptedRun() throws Exception {
    String[] approximate = {
      "--mode", "approximate", "--expected", "50000", "--fpp", "0.05", "--filter", "blocked"
    };
    Path once = dir.resolve("approx-once.jsonl");
    long full = runToEnd(command(dir.resolve("approx-once-state"), once, approximate));
    byte[] uninterrupted = Files.readAllBytes(once);
    // approximate: some new keys were dropped as false positives, deterministically
    assertThat(uninterrupted.length).isLessThan(data.expected.length);
    killAndResume(full, "approx", approximate, uninterrupted, KILLS / 2);
  }

  /**
   * A {@code .jsonl.zst} input to a {@code .jsonl.zst} output: each resume cuts the output back to
   * the last frame a checkpoint counted and appends new frames; after ten kills the real {@code
   * zstd -d} reads the file as the reference (CI installs zstd).
   */
  @Test
  void aZstdOutputKilledTenTimesStillDecompressesToTheReference() throws Exception {
    Process zstd = new ProcessBuilder("zstd", "-q", "-k", "-f", input.toString()).start();
    assertThat(zstd.waitFor(60, TimeUnit.SECONDS) && zstd.exitValue() == 0).isTrue();
    Path zst = Path.of(input + ".zst");
    Path reference = dir.resolve("zstd-reference.jsonl.zst");
    long full =
        runToEnd(withInput(command(dir.resolve("zstd-ref-state"), reference), zst.toString()));
    assertThat(unzstd(reference)).isEqualTo(data.expected);
    KillLoop.run(
        dir,
        "zstd",
        (state, out) -> withInput(command(state, Path.of(out + ".zst")), zst.toString()),
        full,
        1.0,
        KILLS / 2,
        (round, kills, out) ->
            assertThat(unzstd(Path.of(out + ".zst")))
                .as("zstd -dc of the output after %d kills", kills)
                .isEqualTo(data.expected));
  }

  /** {@code args} reading {@code other} in place of the plain input. */
  private static List<String> withInput(List<String> args, String other) {
    args.set(args.size() - 1, other);
    return args;
  }

  private static byte[] unzstd(Path file) throws IOException {
    Process p = new ProcessBuilder("zstd", "-dc", file.toString()).start();
    byte[] text = p.getInputStream().readAllBytes();
    try {
      assertThat(p.waitFor(60, TimeUnit.SECONDS) && p.exitValue() == 0)
          .as("zstd -dc %s: %s", file, new String(p.getErrorStream().readAllBytes()))
          .isTrue();
    } catch (InterruptedException e) {
      throw new IOException(e);
    }
    return text;
  }

  @Test
  void windowedDedupResumesToTheSameOutputAndLateFileAsAnUninterruptedRun() throws Exception {
    // events at 1 per ms of event time ("ts" in the input), out of order by up to 2 s, so with
    // a 1 s delay and 5 s windows some are late: both outputs must come out identical
    StringBuilder events = new StringBuilder();
    java.util.Random r = new java.util.Random(9);
    for (int i = 0; i < 100_000; i++) {
      long ts = 1_764_669_600_000L + i - r.nextInt(2000);
      events
          .append("{\"u\":\"user")
          .append(r.nextInt(3000))
          .append("\",\"ts\":")
          .append(ts)
          .append("}\n");
    }
    Path windowed = dir.resolve("clicks.jsonl");
    Files.writeString(windowed, events.toString());
    String[] extra = {
      "--window",
      "5s",
      "--sliding",
      "--time-field",
      "ts",
      "--max-delay",
      "1s",
      "--late",
      "side-output=" + dir.resolve("late-%s.jsonl")
    };
    Path once = dir.resolve("window-once.jsonl");
    long full =
        runToEnd(windowCommand(dir.resolve("window-once-state"), once, extra, "once", windowed));
    byte[] uninterrupted = Files.readAllBytes(once);
    byte[] lateOnce = Files.readAllBytes(dir.resolve("late-once.jsonl"));
    assertThat(lateOnce.length).as("some events are late").isPositive();
    Random random = new Random(77);
    int kills = 0;
    Path out = dir.resolve("window-out.jsonl");
    List<String> args = windowCommand(dir.resolve("window-state"), out, extra, "resumed", windowed);
    boolean finished = false;
    while (!finished) {
      Process p = ChildProcessTest.start(args.toArray(String[]::new));
      long delay =
          kills >= KILLS / 2
              ? TimeUnit.MINUTES.toMillis(5)
              : 30 + (long) (random.nextDouble() * full * 0.6);
      if (p.waitFor(delay, TimeUnit.MILLISECONDS)) {
        assertThat(p.exitValue()).as(stderr(p)).isZero();
        finished = true;
      } else {
        p.destroyForcibly().waitFor();
        kills++;
      }
    }
    assertThat(Files.readAllBytes(out)).isEqualTo(uninterrupted);
    assertThat(Files.readAllBytes(dir.resolve("late-resumed.jsonl"))).isEqualTo(lateOnce);
  }

  private static List<String> windowCommand(
      Path state, Path out, String[] extra, String tag, Path input) {
    List<String> args =
        new ArrayList<>(
            List.of(
                "dedup",
                "--key",
                "u",
                "--state",
                state.toString(),
                "-o",
                out.toString(),
                "--checkpoint-every",
                "1000",
                "--quiet"));
    for (String e : extra) {
      args.add(e.replace("%s", tag));
    }
    args.add(input.toString());
    return args;
  }

  /** Kills runs at random moments until {@code wanted} kills interrupted a live job. */
  private void killAndResume(
      long fullMillis, String name, String[] extra, byte[] expected, int wanted) throws Exception {
    KillLoop.run(
        dir,
        name,
        (state, out) -> command(state, out, extra),
        fullMillis,
        1.0, // from JVM startup to the end of a run: each resumed run goes further
        wanted,
        (round, kills, out) ->
            assertThat(Files.readAllBytes(out))
                .as("output after %d kills", kills)
                .isEqualTo(expected));
  }

  private static long runToEnd(List<String> args) throws Exception {
    return KillLoop.runToEnd(args);
  }

  private static String stderr(Process p) throws Exception {
    return KillLoop.stderr(p);
  }
}
