package dev.idem.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.idem.engine.output.OutputFile;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * idem in a shell pipeline, as a child process with real streams: a failed write to standard output
 * fails the command; a reader that closes the pipe ends it quietly with 141; pipes and FIFOs work
 * as outputs without {@code --state} and are refused with it; {@code -} for {@code --stats-json}
 * and {@code --dropped} is standard output.
 */
class StandardStreamsTest {

  @TempDir Path dir;
  private Path seen;
  private String expected;

  @BeforeEach
  void lines() throws Exception {
    StringBuilder in = new StringBuilder();
    StringBuilder out = new StringBuilder();
    for (int i = 0; i < 300_000; i++) {
      in.append(i).append('\n');
      out.append(i).append('\n');
    }
    for (int i = 0; i < 1000; i++) {
      in.append(i * 7).append('\n');
    }
    seen = dir.resolve("seen.txt");
    Files.writeString(seen, in);
    expected = out.toString();
  }

  @Test
  void aFullDeviceUnderStandardOutputFailsEveryCommandNamingIt() throws Exception {
    Path idx = dir.resolve("f.idx");
    assertThat(run("filter", "build", "-n", "400000", "-o", idx.toString(), seen.toString()))
        .contains("blocked filter");
    String[][] commands = {
      {"dedup", "--whole-line", seen.toString()},
      {"sort-dedup", "--whole-line", seen.toString()},
      {"filter", "query", idx.toString(), "1", "2", "3"}
    };
    for (String[] args : commands) {
      Process p =
          ChildProcessTest.builder("256m", args).redirectOutput(new File("/dev/full")).start();
      String err = stderr(p);
      assertThat(p.exitValue()).as("%s: %s", args[0], err).isEqualTo(1);
      assertThat(err)
          .contains("<stdout>: write failed: No space left on device")
          .doesNotContain("\tat ")
          .doesNotContain("kept");
    }
  }

  @Test
  void aReaderThatClosesThePipeEndsTheJobQuietlyWith141() throws Exception {
    Process p = ChildProcessTest.start("dedup", "--whole-line", seen.toString());
    CompletableFuture<String> err = errors(p);
    InputStream out = p.getInputStream();
    assertThat((char) out.read()).isEqualTo('0'); // as 'head -c 1' would
    out.close();
    assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
    assertThat(p.exitValue()).isEqualTo(IdemCommand.EXIT_CLOSED_PIPE);
    assertThat(err.get()).as("nothing alarming, no summary").isEmpty();
  }

  @Test
  void aFifoOutputWorksWithoutStateAndIsRefusedWithIt() throws Exception {
    Path fifo = dir.resolve("out.fifo");
    Process mkfifo = new ProcessBuilder("mkfifo", fifo.toString()).start();
    assertThat(mkfifo.waitFor(10, TimeUnit.SECONDS) && mkfifo.exitValue() == 0).isTrue();
    CompletableFuture<String> read =
        CompletableFuture.supplyAsync(
            () -> {
              try {
                return Files.readString(fifo); // opens when the writer does
              } catch (Exception e) {
                throw new IllegalStateException(e);
              }
            });
    assertThat(run("dedup", "--whole-line", "-q", "-o", fifo.toString(), seen.toString()))
        .isEmpty();
    assertThat(read.get(60, TimeUnit.SECONDS)).isEqualTo(expected);

    Process p =
        ChildProcessTest.start(
            "dedup",
            "--whole-line",
            "--state",
            dir.resolve("state").toString(),
            "-o",
            fifo.toString(),
            seen.toString());
    String err = stderr(p);
    assertThat(p.exitValue()).isEqualTo(IdemCommand.EXIT_USAGE);
    assertThat(err).contains("-o " + fifo + " is not a regular file").contains("drop --state");

    // and a resume at a checkpoint past 0 cannot cut a FIFO back: refused before it is opened
    assertThatThrownBy(() -> OutputFile.open(fifo, 10, null))
        .isInstanceOf(IOException.class)
        .hasMessageContaining(fifo + " is not a regular file");

    // a summary is written whole at the end, never cut back: a pipe will do with --state too
    Process stats =
        ChildProcessTest.start(
            "dedup",
            "--whole-line",
            "-q",
            "--state",
            dir.resolve("state-2").toString(),
            "--stats-json",
            "/dev/stderr", // a pipe to this test
            "-o",
            dir.resolve("out.txt").toString(),
            seen.toString());
    String json = stderr(stats);
    assertThat(stats.exitValue()).as(json).isZero();
    assertThat(new ObjectMapper().readTree(json).get("kept").asLong()).isEqualTo(300_000);
  }

  @Test
  void aDashSendsTheStatsOrTheDuplicatesToStandardOutput() throws Exception {
    Path out = dir.resolve("out.txt");
    Process stats =
        ChildProcessTest.start(
            "dedup",
            "--whole-line",
            "-q",
            "--stats-json",
            "-",
            "-o",
            out.toString(),
            seen.toString());
    byte[] json = stats.getInputStream().readAllBytes();
    assertThat(stderr(stats)).isEmpty();
    JsonNode s = new ObjectMapper().readTree(json);
    assertThat(s.get("records").asLong()).isEqualTo(301_000);
    assertThat(s.get("kept").asLong()).isEqualTo(300_000);
    assertThat(Files.readString(out)).isEqualTo(expected);
    assertThat(dir.resolve("-")).doesNotExist();

    Process dropped =
        ChildProcessTest.start(
            "dedup", "--whole-line", "-q", "--dropped", "-", "-o", out.toString(), seen.toString());
    String tsv = new String(dropped.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(stderr(dropped)).isEmpty();
    assertThat(tsv.lines()).hasSize(1000).allMatch(l -> l.startsWith(seen + "\t"));

    Cli.Result both = Cli.run("dedup", "--whole-line", "--stats-json", "-", seen.toString());
    assertThat(both.status()).isEqualTo(IdemCommand.EXIT_USAGE);
    assertThat(both.err()).contains("--stats-json - writes the summary to standard output");
  }

  /** Runs to the end with stdout discarded; returns stderr, after checking the status is 0. */
  private static String run(String... args) throws Exception {
    Process p =
        ChildProcessTest.builder("256m", args)
            .redirectOutput(ProcessBuilder.Redirect.DISCARD)
            .start();
    String err = stderr(p);
    assertThat(p.exitValue()).as(err).isZero();
    return err;
  }

  private static CompletableFuture<String> errors(Process p) {
    return CompletableFuture.supplyAsync(
        () -> {
          try {
            return new String(p.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
          } catch (Exception e) {
            throw new IllegalStateException(e);
          }
        });
  }

  private static String stderr(Process p) throws Exception {
    return KillLoop.stderr(p);
  }
}
