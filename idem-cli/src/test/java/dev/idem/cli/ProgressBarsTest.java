package dev.idem.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.BufferedWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * On a terminal, {@code idem dedup} draws a bar for each of its phases, each ending full: the
 * partitioned method's partition and judge passes, then the records.
 */
class ProgressBarsTest {

  @TempDir Path dir;

  @Test
  void eachPhaseOfThePartitionedMethodHasItsOwnBarEndingAtFull() throws Exception {
    assumeTrue(OnATerminal.available(), "needs script(1) for a terminal");
    Path input = dir.resolve("keys.txt");
    try (BufferedWriter w = Files.newBufferedWriter(input, StandardCharsets.US_ASCII)) {
      for (long i = 0; i < 300_000; i++) {
        w.write("k" + (i * 7919) % 200_000);
        w.newLine();
      }
    }
    OnATerminal terminal =
        OnATerminal.start(
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
    assertThat(lastPercent(shown, "partition")).as(shown).isEqualTo(100);
    assertThat(lastPercent(shown, "judge")).as(shown).isEqualTo(100);
    assertThat(lastPercent(shown, "dedup")).as(shown).isEqualTo(100);
    assertThat(shown.indexOf("partition")).isLessThan(shown.indexOf("judge"));
    assertThat(shown.lastIndexOf("judge")).isLessThan(shown.lastIndexOf("dedup "));
  }

  /** The last percentage the bar named {@code phase} showed, or -1 if it never showed. */
  private static int lastPercent(String shown, String phase) {
    Matcher m = Pattern.compile("\\b" + phase + " +(\\d+)%").matcher(shown);
    int last = -1;
    while (m.find()) {
      last = Integer.parseInt(m.group(1));
    }
    return last;
  }
}
