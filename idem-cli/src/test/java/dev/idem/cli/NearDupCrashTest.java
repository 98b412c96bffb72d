package dev.idem.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@code idem near-dup --state} in a child process, killed with SIGKILL at random moments (while
 * judging, and while writing between and during checkpoints) and rerun with the same command until
 * it finishes: the output, {@code --dropped} and {@code --clusters} equal an uninterrupted run's
 * byte for byte, and that run's equal a run without a state; for the batch and the streaming plan,
 * and for a batch job whose tables outgrow {@code --memory} (kept partly in RocksDB in {@code
 * --tmp}, which a killed run leaves behind for the next run to remove).
 */
class NearDupCrashTest {

  private static final int DOCUMENTS = 8_000;

  /**
   * Random kills per case: 3 in CI, since KillAtEveryStepTest kills at every named step; {@code
   * -Didem.kills=100} by hand for a long soak.
   */
  private static final int KILLS = Integer.getInteger("idem.kills", 3);

  @TempDir static Path dir;
  private static Path input;

  @BeforeAll
  static void generate() throws IOException {
    SplittableRandom random = new SplittableRandom(20261204L);
    List<String[]> bases = new ArrayList<>();
    StringBuilder b = new StringBuilder();
    for (int i = 0; i < DOCUMENTS; i++) {
      String[] words;
      if (!bases.isEmpty() && random.nextInt(3) == 0) {
        words = bases.get(bases.size() - 1 - random.nextInt(Math.min(200, bases.size()))).clone();
        for (int e = random.nextInt(6); e >= 0; e--) {
          words[random.nextInt(words.length)] = "e" + random.nextInt(100_000);
        }
      } else {
        words = new String[80];
        for (int w = 0; w < words.length; w++) {
          words[w] = "w" + random.nextInt(10_000);
        }
        bases.add(words);
      }
      b.append("{\"id\":").append(i).append(",\"text\":\"").append(String.join(" ", words));
      b.append("\"}\n");
    }
    input = dir.resolve("docs.jsonl");
    Files.writeString(input, b);
  }

  private static List<String> command(Path state, Path out) {
    return command(state, out, false, null);
  }

  /**
   * @param spillTo with {@code --memory 90m} (3.5 MiB of tables: about 2,000 documents' with
   *     --verify) the rest to this {@code --tmp}, or {@code null}
   */
  private static List<String> command(Path state, Path out, boolean streaming, Path spillTo) {
    List<String> command =
        new ArrayList<>(
            List.of(
                "near-dup",
                "--content",
                "text",
                "--verify",
                "--state",
                state.toString(),
                "--checkpoint-every",
                "300",
                "--dropped",
                out + ".dropped",
                "--clusters",
                out + ".clusters",
                "-o",
                out.toString(),
                "--quiet",
                input.toString()));
    if (streaming) {
      command.add(1, "--streaming");
    }
    if (spillTo != null) {
      command.addAll(1, List.of("--memory", "90m", "--tmp", spillTo.toString()));
    }
    return command;
  }

  /**
   * The batch plan (killed while judging, and while writing) and the streaming plan (which writes
   * while it judges: killed between and during checkpoints, and resumed by judging the written
   * documents again).
   */
  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"batch", "streaming", "batch spilling"})
  void killedTwelveTimesItWritesWhatAnUninterruptedRunWrites(String mode) throws Exception {
    boolean streaming = mode.equals("streaming");
    Path spillTo =
        mode.contains("spilling") ? Files.createDirectories(dir.resolve("spill-tmp")) : null;
    String plan = mode.replace(' ', '-') + "-";
    Path once = dir.resolve(plan + "once.jsonl");
    long full =
        KillLoop.runToEnd(command(dir.resolve(plan + "once-state"), once, streaming, spillTo));
    byte[] out = Files.readAllBytes(once);
    byte[] dropped = Files.readAllBytes(Path.of(once + ".dropped"));
    byte[] clusters = Files.readAllBytes(Path.of(once + ".clusters"));
    List<String> stateless =
        new ArrayList<>(
            List.of("near-dup", "--content", "text", "--verify", "-q", input.toString()));
    if (streaming) {
      stateless.add(1, "--streaming");
    }
    assertThat(Cli.run(stateless.toArray(String[]::new)).outBytes()).isEqualTo(out);
    assertThat(out.length).isPositive();
    assertThat(dropped.length).isPositive();

    // the spilling job is killed where its tables are open (judging); the others while writing too
    boolean whileJudging = spillTo != null;
    int[] writingKills = {0};
    int[] judgingKills = {0};
    KillLoop.run(
        Files.createDirectories(dir.resolve(plan + "kills")),
        "near-dup-" + mode.replace(' ', '-'), // each variant its own moments
        (state, o) -> command(state, o, streaming, spillTo),
        full,
        // past the uninterrupted run's time too: a resumed run starts slower (it removes what
        // the last one left), so kills within it alone may all land before the writing
        1.5,
        KILLS,
        new KillLoop.Watcher() {
          @Override
          public void killed(Path state) throws IOException {
            if (writing(state)) {
              writingKills[0]++;
            } else {
              judgingKills[0]++;
            }
          }

          @Override
          public boolean killHere(Path state) throws IOException {
            return whileJudging != writing(state);
          }

          @Override
          public boolean enough() {
            return (whileJudging ? judgingKills : writingKills)[0] > 0;
          }

          @Override
          public void finished(int round, int kills, Path o) throws IOException {
            String as = "round " + round + " after " + kills + " kills";
            assertThat(Files.readAllBytes(o)).as(as).isEqualTo(out);
            assertThat(Files.readAllBytes(Path.of(o + ".dropped"))).as(as).isEqualTo(dropped);
            assertThat(Files.readAllBytes(Path.of(o + ".clusters"))).as(as).isEqualTo(clusters);
          }
        });
    if (whileJudging) {
      assertThat(judgingKills[0]).as("kills while judging").isPositive();
    } else {
      assertThat(writingKills[0]).as("kills while writing").isPositive();
    }
    if (spillTo != null) {
      // a new job that spills removes the tables the killed runs left
      Path fresh = dir.resolve(plan + "fresh.jsonl");
      Cli.Result r =
          Cli.run(
              command(dir.resolve(plan + "fresh-state"), fresh, false, spillTo)
                  .toArray(String[]::new));
      assertThat(r.status()).as(r.err()).isZero();
      assertThat(Files.readAllBytes(fresh)).isEqualTo(out);
      try (var left = Files.list(spillTo)) {
        assertThat(left).as("no spill tables are left in --tmp").isEmpty();
      }
    }
  }

  @Test
  void aFinishedStateIsNotRunAgainAndAnotherCommandIsRefused() throws Exception {
    Path state = dir.resolve("done-state");
    Path out = dir.resolve("done.jsonl");
    KillLoop.runToEnd(command(state, out));
    byte[] written = Files.readAllBytes(out);
    Cli.Result again = Cli.run(command(state, out).toArray(String[]::new));
    assertThat(again.status()).as(again.err()).isZero();
    assertThat(again.err()).contains("holds a finished job");
    assertThat(Files.readAllBytes(out)).isEqualTo(written);
    List<String> other = new ArrayList<>(command(state, out));
    other.addAll(1, List.of("--threshold", "0.7"));
    Cli.Result refused = Cli.run(other.toArray(String[]::new));
    assertThat(refused.status()).isEqualTo(2);
    assertThat(refused.err())
        .contains("differs from the job in")
        .contains("--threshold differs: the state has 0.8, this command has 0.7");
  }

  @Test
  void standardInputAndStandardOutputCannotBeResumed() throws IOException {
    Cli.Result noOutput =
        Cli.run(
            "near-dup",
            "--content",
            "text",
            "--state",
            dir.resolve("s1").toString(),
            input.toString());
    assertThat(noOutput.status()).isEqualTo(2);
    assertThat(noOutput.err()).contains("--state needs -o FILE");
    Cli.Result stdin =
        Cli.runWithInput(
            "{\"text\":\"a\"}\n",
            "near-dup",
            "--content",
            "text",
            "--state",
            dir.resolve("s2").toString(),
            "-o",
            dir.resolve("o2.jsonl").toString());
    assertThat(stdin.status()).isEqualTo(2);
    assertThat(stdin.err()).contains("standard input can be read only once");
  }

  /** Whether the job's checkpoint says it is writing (its judgement made). */
  private static boolean writing(Path state) throws IOException {
    Path checkpoint = state.resolve("NEAR-DUP.json");
    try {
      return Files.exists(checkpoint) && Files.readString(checkpoint).contains("\"WRITING\"");
    } catch (java.nio.file.NoSuchFileException e) {
      return false; // replaced between the two calls
    }
  }
}
