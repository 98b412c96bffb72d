package dev.idem.cli;

import dev.idem.core.ByteSize;
import dev.idem.engine.estimate.DistinctKeyCounter;
import dev.idem.engine.estimate.InputSurvey;
import dev.idem.engine.plan.JobMemory;
import dev.idem.engine.plan.MethodEstimate;
import dev.idem.engine.plan.Planner.Recommendation;
import dev.idem.engine.plan.Workload;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The human form of {@code idem plan}: the workload, the sample, the table, the advice. It fits in
 * {@value #WIDTH} columns: the table's columns are narrow, its notes are listed below it, and prose
 * is wrapped; only a command to copy is left on one line, however long.
 */
final class PlanReport {

  /** The widest line, but for commands: a terminal of 80 columns shows it without wrapping. */
  static final int WIDTH = 79;

  private static final String ROW = "%-23s %9s %6s %9s %9s %7s %-5s %s%n";

  private PlanReport() {}

  static void print(
      PrintStream out,
      Workload w,
      InputSurvey.Result s,
      List<String> inputs,
      List<MethodEstimate> rows,
      Recommendation rec,
      String command) {
    if (s != null) {
      printSample(out, s, inputs);
    }
    boolean capped = s != null && s.whole().high() > w.distinct();
    wrap(
        out,
        String.format(
            Locale.ROOT,
            "Workload: %,d records, %,d distinct keys%s, %s, %s%s%s",
            w.records(),
            w.distinct(),
            s == null
                ? ""
                : capped
                    ? " (the sample's upper end, capped at the records)"
                    : " (the sample's upper end)",
            w.memoryBytes() > 0
                ? ByteSize.format(w.memoryBytes()) + " of memory"
                : "no memory budget",
            w.exact() ? "exact" : "approximate at " + pct(w.fpp()),
            w.window() != null
                ? ", a stream in windows of "
                    + w.window().toString().substring(2).toLowerCase(Locale.ROOT)
                : "",
            w.deletes() ? ", with deletes" : ""),
        "");
    out.println();
    out.printf(
        Locale.ROOT,
        ROW,
        "method",
        "memory",
        "bits/k",
        "disk",
        "false pos",
        "lookups",
        "E D W",
        "fits");
    for (MethodEstimate m : rows) {
      out.printf(
          Locale.ROOT,
          ROW,
          m.method(),
          m.memoryBytes() < 0 ? "?" : ByteSize.format(m.memoryBytes()),
          m.memoryBytes() < 0
              ? "?"
              : String.format(
                  Locale.ROOT,
                  m.bitsPerKey(w.distinct()) < 1000 ? "%.1f" : "%.0f",
                  m.bitsPerKey(w.distinct())),
          m.diskBytes() == 0 ? "-" : ByteSize.format(m.diskBytes()),
          m.fpp() == 0 ? "0" : pct(m.fpp()),
          m.lookupsPerNewRecord() == 0
              ? "0"
              : String.format(Locale.ROOT, "%.4f", m.lookupsPerNewRecord()),
          yes(m.exact()) + " " + yes(m.deletes()) + " " + yes(m.windows()),
          m.memoryBytes() < 0 ? "?" : m.fits() ? "yes" : "no");
    }
    wrap(
        out,
        "memory: the Java heap of a job, its "
            + ByteSize.format(JobMemory.WORKING_HEAP)
            + " of working heap included, or a structure alone; bits/k: bits of memory a "
            + "distinct key; lookups: exact-tier reads a new key; E: exact (no new key is lost), "
            + "D: keys can be deleted, W: time windows; fits: runs in a heap of the budget.",
        "");
    out.println();
    out.println("Notes:");
    for (MethodEstimate m : rows) {
      wrap(out, "  " + m.method() + ": " + m.note(), "      ");
    }
    out.println();
    wrap(out, "Recommended: " + rec.method() + ". " + rec.reason(), "");
    out.println("  " + command);
    if (!rec.method().equals("none fits")) {
      wrap(out, heapNote(w, command), "   ");
    }
  }

  /**
   * What holds the recommended command to the budget: bin/idem sets the JVM's heap limit from
   * {@code --memory} (and only from it), unless {@code IDEM_JAVA_OPTS} gives one.
   */
  static String heapNote(Workload w, String command) {
    if (command.contains(" --memory ")) {
      return "  (bin/idem starts the JVM with the heap limit that --memory needs; "
          + "IDEM_JAVA_OPTS=-Xmx... overrides it)";
    }
    if (w.memoryBytes() > 0) {
      return "  (add --memory "
          + RecommendedCommand.size(w.memoryBytes())
          + " to hold bin/idem's heap to the budget; without it the heap grows to what the job "
          + "holds, up to the JVM's default limit)";
    }
    return "  (bin/idem's heap grows to what the job holds, up to the JVM's default limit; "
        + "--memory SIZE holds it to SIZE)";
  }

  private static void printSample(PrintStream out, InputSurvey.Result s, List<String> inputs) {
    wrap(
        out,
        String.format(
            Locale.ROOT,
            "Sample of %s: %s read",
            String.join(" ", inputs),
            s.complete()
                ? "all " + ByteSize.format(s.totalBytes())
                : ByteSize.format(s.bytesRead())
                    + " of "
                    + ByteSize.format(s.totalBytes())
                    + " (the rest extrapolated by bytes)"),
        "  ");
    wrap(
        out,
        String.format(
            Locale.ROOT,
            "  records       %,d (%,d without a usable key)%s",
            s.records(),
            s.badRecords(),
            s.complete()
                ? ""
                : String.format(Locale.ROOT, "; about %,d in all", s.recordsInWhole())),
        "                ");
    wrap(
        out,
        String.format(
            Locale.ROOT,
            "  distinct keys %,.0f, 99 %% interval %,.0f to %,.0f (UltraLogLog, relative "
                + "standard error %.2f %%)",
            s.sampled().estimate(),
            s.sampled().low(),
            s.sampled().high(),
            100 * DistinctKeyCounter.RELATIVE_STANDARD_ERROR),
        "                ");
    if (!s.complete()) {
      wrap(
          out,
          String.format(
              Locale.ROOT,
              "  in all        at most about %,.0f (%,.0f to %,.0f)",
              s.whole().estimate(),
              s.whole().low(),
              s.whole().high()),
          "                ");
    }
    long good = s.records() - s.badRecords();
    out.printf(
        Locale.ROOT,
        "  duplicates    %s of the records read%n",
        good == 0
            ? "-"
            : String.format(
                Locale.ROOT, "%.1f %%", 100 * Math.max(0, 1 - s.sampled().estimate() / good)));
    out.printf(
        Locale.ROOT,
        "  mean key      %.1f bytes; mean record %.1f bytes%n%n",
        s.meanKeyBytes(),
        s.meanRecordBytes());
  }

  /**
   * Prints {@code text} in lines of at most {@link #WIDTH} columns, broken at spaces, each line
   * after the first starting with {@code indent}; the text's own leading spaces indent its first
   * line. A word longer than a line stays whole.
   */
  static void wrap(PrintStream out, String text, String indent) {
    if (text.length() <= WIDTH) {
      out.println(text); // as it is, its runs of spaces too
      return;
    }
    int lead = 0;
    while (lead < text.length() && text.charAt(lead) == ' ') {
      lead++;
    }
    StringBuilder line = new StringBuilder(text.substring(0, lead));
    boolean empty = true;
    // a number and its unit stay on one line: "8.0 GiB", "0.61 %"
    List<String> words = new ArrayList<>();
    for (String word : text.substring(lead).split(" +")) {
      if (!words.isEmpty() && word.matches("(B|KiB|MiB|GiB|TiB|%)[,.;:)]*")) {
        words.set(words.size() - 1, words.get(words.size() - 1) + " " + word);
      } else {
        words.add(word);
      }
    }
    for (String word : words) {
      if (word.isEmpty()) {
        continue;
      }
      if (!empty && line.length() + 1 + word.length() > WIDTH) {
        out.println(line);
        line.setLength(0);
        line.append(indent);
        empty = true;
      }
      if (!empty) {
        line.append(' ');
      }
      line.append(word);
      empty = false;
    }
    out.println(line);
  }

  private static String yes(boolean b) {
    return b ? "y" : "-";
  }

  private static String pct(double p) {
    return String.format(Locale.ROOT, "%.3g%%", 100 * p);
  }
}
