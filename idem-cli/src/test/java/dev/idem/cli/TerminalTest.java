package dev.idem.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.BufferedWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What a person at a terminal sees: a command that waits for standard input says so, and progress
 * bars fit a terminal of 80 columns. Each runs idem in a child JVM on a pseudo-terminal ({@code
 * script(1)}).
 */
class TerminalTest {

  @TempDir Path dir;

  @Test
  void withNoInputFileOnATerminalDedupSaysItReadsStandardInput() throws Exception {
    assumeTrue(OnATerminal.available(), "needs script(1) for a terminal");
    OnATerminal terminal =
        OnATerminal.start("256m", "dedup", "--whole-line", "-o", dir.resolve("o").toString());
    try {
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
      while (!terminal.shown().contains("Ctrl-D") && System.nanoTime() < deadline) {
        Thread.sleep(50);
      }
      assertThat(terminal.shown())
          .contains("idem dedup: reading records from standard input (the terminal)")
          .contains("then Ctrl-D");
    } finally {
      terminal.script.descendants().forEach(ProcessHandle::destroyForcibly);
      terminal.script.destroyForcibly();
      terminal.awaitEnd();
    }
  }

  @Test
  void aPipeIsReadWithoutANote() {
    Cli.Result r = Cli.runWithInput("a\nb\na\n", "dedup", "--whole-line");
    assertThat(r.status()).isZero();
    assertThat(r.out()).isEqualTo("a\nb\n");
    assertThat(r.err()).doesNotContain("Ctrl-D");
  }

  @Test
  void atEightyColumnsEveryBarLineFitsAndKeepsItsBar() throws Exception {
    assumeTrue(OnATerminal.available(), "needs script(1) for a terminal");
    Path input = dir.resolve("keys.txt");
    try (BufferedWriter w = Files.newBufferedWriter(input, StandardCharsets.US_ASCII)) {
      for (long i = 0; i < 2_000_000; i++) {
        w.write("key-" + (i * 7919) % 1_500_000);
        w.newLine();
      }
    }
    OnATerminal terminal =
        OnATerminal.start(
            80,
            "256m",
            "dedup",
            "--whole-line",
            "--exact-store",
            "partitioned",
            "-o",
            dir.resolve("out.txt").toString(),
            input.toString());
    terminal.awaitEnd();
    String shown = terminal.shown();
    assertThat(terminal.script.exitValue()).as(shown).isZero();
    List<String> bars =
        shown
            .lines()
            .flatMap(l -> List.of(l.split("\r")).stream())
            .filter(l -> l.matches("(partition|judge|dedup) +\\d+% .*"))
            .toList();
    assertThat(bars).as(shown).isNotEmpty();
    for (String bar : bars) {
      assertThat(bar.length()).as(bar).isLessThan(80);
      assertThat(bar).as(bar).containsPattern("\\[[=> ]{10,}]").doesNotContain("[ ]");
    }
    assertThat(bars).anyMatch(b -> b.startsWith("dedup 100% [") && b.contains("MiB"));
  }
}
