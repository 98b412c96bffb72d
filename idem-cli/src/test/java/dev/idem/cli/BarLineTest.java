package dev.idem.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** A progress bar's line fits its terminal and keeps a bar worth the name. */
class BarLineTest {

  private static final String EXTRA = " | 123,456,789 rec, 69.4% kept";

  private final BarLine mib = new BarLine(" MiB", 1 << 20);

  /** The cells between the brackets, or -1 without a bar. */
  private static int cells(String line) {
    Matcher m = Pattern.compile("\\[([=> ]*)]").matcher(line);
    return m.find() ? m.group(1).length() : -1;
  }

  @Test
  void atEightyColumnsTheBarKeepsItsCellsAndTheLineItsEnd() {
    long gib = 1L << 30;
    for (long done : new long[] {0, 1L << 20, 37 * gib / 2, 55 * gib, 123 * gib}) {
      String line = mib.line("partition", 0, done, 123 * gib, Duration.ofSeconds(754), EXTRA, 80);
      assertThat(line.length()).as(line).isLessThan(80);
      assertThat(cells(line)).as(line).isGreaterThanOrEqualTo(BarLine.MIN_BAR);
      assertThat(line).as(line).startsWith("partition ").contains("% [");
    }
    String done = mib.line("dedup", 0, 123 * gib, 123 * gib, Duration.ofSeconds(754), EXTRA, 80);
    assertThat(done).contains("dedup 100% [" + "=".repeat(cells(done)) + "]");
  }

  @Test
  void aWideTerminalShowsEverything() {
    String line = mib.line("dedup", 0, 40L << 20, 100L << 20, Duration.ofSeconds(4), EXTRA, 200);
    assertThat(line)
        .startsWith("dedup  40% [")
        .contains("] 40/100 MiB 10.0 MiB/s ETA 0:00:06 | 123,456,789 rec, 69.4% kept");
    assertThat(line.length()).isLessThan(200);
  }

  @Test
  void aResumedBarCountsItsSpeedFromWhereThisRunStarted() {
    String line =
        mib.line("dedup", 60L << 20, 80L << 20, 100L << 20, Duration.ofSeconds(2), "", 200);
    assertThat(line).contains("10.0 MiB/s ETA 0:00:02");
  }

  @Test
  void standardInputHasNoEndToShow() {
    String line = mib.line("dedup", 0, 12L << 20, -1, Duration.ofSeconds(3), EXTRA, 80);
    assertThat(line).startsWith("dedup 12 MiB 4.0 MiB/s (0:00:03) | 123,456,789 rec");
    assertThat(cells(line)).isEqualTo(-1);
    assertThat(line).doesNotContain("0/0");
  }

  @Test
  void aNarrowTerminalCutsTheLineRatherThanWrapIt() {
    String line = mib.line("dedup", 0, 1L << 30, 2L << 30, Duration.ofSeconds(10), EXTRA, 20);
    assertThat(line.length()).isLessThan(20);
  }
}
