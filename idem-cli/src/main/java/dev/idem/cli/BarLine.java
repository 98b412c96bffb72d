package dev.idem.cli;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import me.tongfei.progressbar.ProgressBarRenderer;
import me.tongfei.progressbar.ProgressState;

/**
 * One line of a progress bar that fits the terminal: {@code dedup 45% [=====> ] 120/266 MiB 41.3
 * MiB/s ETA 0:00:03 | 1,204,332 rec, 69.4% kept}. The bar library's own renderer gives the bar
 * whatever room the text beside it leaves, so at 80 columns the bar shrank to {@code [ ]} and the
 * terminal cut the line's end; this one drops the least useful parts first (the message, then the
 * speed, then the amounts) so that the bar keeps at least {@value #MIN_BAR} cells, and never writes
 * into the last column, where a terminal would wrap.
 *
 * <p>An amount of work that is not known ({@code max <= 0}: standard input) has no bar and no
 * percentage: the line says how much was read, and how fast.
 */
final class BarLine implements ProgressBarRenderer {

  /** The fewest cells of the bar itself, between its brackets. */
  static final int MIN_BAR = 10;

  private final String unit;
  private final long unitSize;

  /**
   * @param unit what the amounts count, after a space ({@code " MiB"})
   * @param unitSize how many of what the bar counts make one unit
   */
  BarLine(String unit, long unitSize) {
    this.unit = unit.strip();
    this.unitSize = Math.max(1, unitSize);
  }

  @Override
  public String render(ProgressState s, int maxLength) {
    return line(
        s.getTaskName(),
        s.getStart(),
        s.getCurrent(),
        s.isIndefinite() ? -1 : s.getMax(),
        s.getElapsedAfterStart(),
        s.getExtraMessage(),
        maxLength);
  }

  /**
   * The line for a bar named {@code task} at {@code current} of {@code max} ({@code <= 0}: not
   * known), counted from {@code start} (what an earlier run did) for {@code elapsed}, in at most
   * {@code width - 1} columns.
   */
  String line(
      String task, long start, long current, long max, Duration elapsed, String extra, int width) {
    double seconds = elapsed.toMillis() / 1000.0;
    double perSecond = seconds <= 0 ? 0 : (current - start) / seconds;
    String speed =
        perSecond <= 0 ? "" : String.format(Locale.ROOT, "%.1f %s/s", perSecond / unitSize, unit);
    String message = extra == null ? "" : extra.stripTrailing();
    int room = Math.max(MIN_BAR + 2, width - 1);
    if (max <= 0) {
      String amount = String.format(Locale.ROOT, "%s %,d %s", task, current / unitSize, unit);
      return fit(
          List.of(amount, speed, "(" + clock(elapsed) + ")", message.strip()), room, List.of());
    }
    long done = Math.min(current, max);
    int percent = (int) (100 * done / max);
    String head = String.format(Locale.ROOT, "%s %3d%%", task, percent);
    String amounts =
        String.format(Locale.ROOT, "%,d/%,d %s", current / unitSize, max / unitSize, unit);
    String eta =
        done >= max
            ? clock(elapsed)
            : perSecond <= 0
                ? "ETA ?"
                : "ETA " + clock(Duration.ofSeconds((long) ((max - done) / perSecond)));
    // parts after the bar, each dropped in turn (message, speed, amounts) while the bar lacks room
    List<String> tail = new ArrayList<>(List.of(amounts, speed, eta, message.strip()));
    int[] dropOrder = {3, 1, 0};
    for (int d = 0; ; d++) {
      int fixed = head.length() + 3; // " [" before the bar, "]" after it
      for (String t : tail) {
        fixed += t.isEmpty() ? 0 : t.length() + 1;
      }
      int cells = room - fixed;
      if (cells >= MIN_BAR || d == dropOrder.length) {
        return fit(
            List.of(head, bar(done, max, Math.max(MIN_BAR, cells))), room, tail.stream().toList());
      }
      tail.set(dropOrder[d], "");
    }
  }

  /** The parts joined by spaces (empty ones left out), cut to {@code room} columns. */
  private static String fit(List<String> head, int room, List<String> tail) {
    StringBuilder b = new StringBuilder();
    for (String part : head) {
      if (!part.isEmpty()) {
        b.append(b.length() == 0 ? "" : " ").append(part);
      }
    }
    for (String part : tail) {
      if (!part.isEmpty()) {
        b.append(' ').append(part);
      }
    }
    return b.length() <= room ? b.toString() : b.substring(0, room);
  }

  private static String bar(long done, long max, int cells) {
    int full = (int) (cells * done / max);
    StringBuilder b = new StringBuilder("[");
    for (int i = 0; i < cells; i++) {
      b.append(i < full ? '=' : i == full ? '>' : ' ');
    }
    return b.append(']').toString();
  }

  private static String clock(Duration d) {
    long s = Math.max(0, d.getSeconds());
    return String.format(Locale.ROOT, "%d:%02d:%02d", s / 3600, s / 60 % 60, s % 60);
  }
}
