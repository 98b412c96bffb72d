package dev.idem.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code idem dedup --history}, end to end: the real command in child JVMs, run over three batches
 * in turn (each with keys of the earlier ones and repeats of its own), every run killed — at named
 * steps of the protocol ({@code -Didem.crash-at}, which halts the JVM as SIGKILL does) and with
 * SIGKILL at random moments — and rerun with the same command until it finishes. Each batch's
 * output must equal, byte for byte, its records whose keys neither an earlier batch nor an earlier
 * record of its own had; a finished run started again must change nothing; another run while one is
 * unfinished must be refused.
 *
 * <p>Short in CI: {@value #CI_KILLS} random kills per batch besides the named ones. By hand, for a
 * long soak: {@code -Didem.history-kills=50}.
 */
class HistoryCrashTest {

  static final int CI_KILLS = 2;
  private static final int KILLS = Integer.getInteger("idem.history-kills", CI_KILLS);
  private static final int RECORDS = 30_000;

  /** Named steps each batch's first runs are halted at, in turn. */
  private static final List<List<String>> STEPS =
      List.of(
          List.of("RUN_STARTED", "RECORD_HANDLED:7000", "COMMITTED:3"),
          List.of("OUTPUTS_SYNCED:2", "RUN_RECORDED"),
          List.of("OUTPUTS_CUT", "COMMITTED:2"));

  @TempDir Path dir;

  @Test
  void batchesKilledAnywhereWriteEachRecordNoEarlierBatchHadExactlyOnce() throws Exception {
    Path history = dir.resolve("history");
    Random random = new Random(20261207L);
    Set<String> seen = new HashSet<>();
    for (int b = 0; b < STEPS.size(); b++) {
      Path input = dir.resolve("batch-" + b + ".jsonl");
      ByteArrayOutputStream expected = new ByteArrayOutputStream();
      StringBuilder records = new StringBuilder();
      for (int i = 0; i < RECORDS; i++) {
        // keys 0..(b+1)*20,000: a third of each batch's keys come from earlier batches
        String id = "k" + random.nextInt((b + 1) * 20_000);
        String line = "{\"id\":\"" + id + "\",\"batch\":" + b + ",\"n\":" + i + "}\n";
        records.append(line);
        if (seen.add(id)) {
          expected.writeBytes(line.getBytes(StandardCharsets.UTF_8));
        }
      }
      Files.writeString(input, records);
      Path out = dir.resolve("new-" + b + ".jsonl");
      List<String> command = command(history, out, input);

      for (String step : STEPS.get(b)) {
        haltAt(step, command);
      }
      if (b == 0) {
        anotherRunIsRefused(history, input);
      }
      killAtRandom(command, random);
      Cli.Result end = Cli.run(command.toArray(String[]::new));
      assertThat(end.status()).as(end.err()).isZero();
      assertThat(Files.readAllBytes(out)).isEqualTo(expected.toByteArray());

      List<String> saying = new ArrayList<>(command);
      saying.remove("--quiet");
      Cli.Result again = Cli.run(saying.toArray(String[]::new));
      assertThat(again.status()).as(again.err()).isZero();
      assertThat(again.err()).contains("already complete");
      assertThat(Files.readAllBytes(out)).isEqualTo(expected.toByteArray());
    }
  }

  /** While batch 0's run is unfinished, a run of another batch is refused and writes nothing. */
  private void anotherRunIsRefused(Path history, Path input) throws IOException {
    Path other = dir.resolve("other.jsonl");
    Files.writeString(other, "{\"id\":\"x\"}\n");
    Path out = dir.resolve("other-out.jsonl");
    Cli.Result r = Cli.run(command(history, out, other).toArray(String[]::new));
    assertThat(r.status()).isEqualTo(2);
    assertThat(r.err())
        .contains("has an unfinished run 1")
        .contains(input.getFileName().toString())
        .contains("finish that run first by running its command again")
        .doesNotContain("Exception");
    assertThat(out).doesNotExist();
  }

  private static List<String> command(Path history, Path out, Path input) {
    return new ArrayList<>(
        List.of(
            "dedup",
            "--key",
            "id",
            "--history",
            history.toString(),
            "-o",
            out.toString(),
            "--checkpoint-every",
            "2000",
            "--quiet",
            input.toString()));
  }

  private static void haltAt(String step, List<String> command) throws Exception {
    Process p =
        ChildProcessTest.builder("512m", List.of("-Didem.crash-at=" + step), args(command))
            .redirectOutput(ProcessBuilder.Redirect.DISCARD)
            .start();
    String err = new String(p.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(p.waitFor(120, TimeUnit.SECONDS)).isTrue();
    assertThat(p.exitValue()).as("halted at " + step + ": " + err).isEqualTo(137);
  }

  /** Kills runs of {@code command} with SIGKILL at random moments, {@link #KILLS} times. */
  private static void killAtRandom(List<String> command, Random random) throws Exception {
    for (int k = 0; k < KILLS; k++) {
      Process p = ChildProcessTest.start(args(command));
      if (p.waitFor(200 + random.nextInt(1500), TimeUnit.MILLISECONDS)) {
        assertThat(p.exitValue()).as(KillLoop.stderr(p)).isZero();
        return; // it finished first: the rest is the rerun's to check
      }
      p.destroyForcibly().waitFor();
    }
  }

  private static String[] args(List<String> command) {
    return command.toArray(String[]::new);
  }
}
