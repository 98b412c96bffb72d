package dev.idem.cli;

import dev.idem.core.ByteSize;
import dev.idem.engine.plan.JobMemory;
import dev.idem.engine.plan.MethodEstimate;
import dev.idem.engine.plan.Planner.Recommendation;
import dev.idem.engine.plan.Workload;
import dev.idem.engine.records.DistinctKeyCounter;
import dev.idem.engine.records.InputSurvey;
import java.io.PrintStream;
import java.util.List;
import java.util.Locale;

/** The human form of {@code idem plan}: the workload, the sample, the table, the advice. */
final class PlanReport {

  private static final String ROW = "%-30s %10s %9s %10s %10s %11s  %-5s %-7s %-7s %s%n";

  private PlanReport() {}

  static void print(
      PrintStream out,
      Workload w,
      InputSurvey.Result s,
      List<String> inputs,
      List<MethodEstimate> rows,
      Recommendation rec) {
    if (s != null) {
      printSample(out, s, inputs);
    }
    out.printf(
        Locale.ROOT,
        "Workload: %,d records, %,d distinct keys%s, %s, %s%s%s%n%n",
        w.records(),
        w.distinct(),
        s != null ? " (the sample's upper end)" : "",
        w.memoryBytes() > 0 ? ByteSize.format(w.memoryBytes()) + " of memory" : "no memory budget",
        w.exact() ? "exact" : "approximate at " + pct(w.fpp()),
        w.window() != null
            ? ", a stream in windows of "
                + w.window().toString().substring(2).toLowerCase(Locale.ROOT)
            : "",
        w.deletes() ? ", with deletes" : "");
    out.printf(
        Locale.ROOT,
        ROW,
        "method",
        "memory",
        "bits/key",
        "disk",
        "false pos.",
        "lookups/new",
        "exact",
        "deletes",
        "windows",
        "fits   notes");
    for (MethodEstimate m : rows) {
      out.printf(
          Locale.ROOT,
          ROW,
          m.method(),
          m.memoryBytes() < 0 ? "?" : ByteSize.format(m.memoryBytes()),
          m.memoryBytes() < 0
              ? "?"
              : String.format(Locale.ROOT, "%.1f", m.bitsPerKey(w.distinct())),
          m.diskBytes() == 0 ? "-" : ByteSize.format(m.diskBytes()),
          m.fpp() == 0 ? "0" : pct(m.fpp()),
          m.lookupsPerNewRecord() == 0
              ? "0"
              : String.format(Locale.ROOT, "%.4f", m.lookupsPerNewRecord()),
          yes(m.exact()),
          yes(m.deletes()),
          yes(m.windows()),
          String.format(
              Locale.ROOT, "%-6s %s", m.memoryBytes() < 0 ? "?" : yes(m.fits()), m.note()));
    }
    out.printf(
        Locale.ROOT,
        "(memory: the Java heap of a job, its %s of working heap included, or a structure alone; "
            + "fits: runs in a heap of the budget)%n",
        ByteSize.format(JobMemory.WORKING_HEAP));
    out.printf(
        Locale.ROOT, "%nRecommended: %s. %s%n  %s%n", rec.method(), rec.reason(), rec.command());
    if (w.memoryBytes() > 0 && !rec.method().equals("none fits")) {
      out.printf(
          Locale.ROOT,
          "  (IDEM_JAVA_OPTS=-Xmx%s holds bin/idem to the budget; without it the heap grows to "
              + "what the job holds)%n",
          heapOption(w.memoryBytes()));
    }
  }

  private static void printSample(PrintStream out, InputSurvey.Result s, List<String> inputs) {
    out.printf(
        Locale.ROOT,
        "Sample of %s: %s read%n",
        String.join(" ", inputs),
        s.complete()
            ? "all " + ByteSize.format(s.totalBytes())
            : ByteSize.format(s.bytesRead())
                + " of "
                + ByteSize.format(s.totalBytes())
                + " (the rest extrapolated by bytes)");
    out.printf(
        Locale.ROOT,
        "  records       %,d (%,d without a usable key)%s%n",
        s.records(),
        s.badRecords(),
        s.complete() ? "" : String.format(Locale.ROOT, "; about %,d in all", s.recordsInWhole()));
    out.printf(
        Locale.ROOT,
        "  distinct keys %,.0f, 99 %% interval %,.0f to %,.0f "
            + "(UltraLogLog, relative standard error %.2f %%)%n",
        s.sampled().estimate(),
        s.sampled().low(),
        s.sampled().high(),
        100 * DistinctKeyCounter.RELATIVE_STANDARD_ERROR);
    if (!s.complete()) {
      out.printf(
          Locale.ROOT,
          "  in all        at most about %,.0f (%,.0f to %,.0f)%n",
          s.whole().estimate(),
          s.whole().low(),
          s.whole().high());
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

  private static String heapOption(long bytes) {
    return bytes % (1 << 30) == 0
        ? (bytes >> 30) + "g"
        : bytes % (1 << 20) == 0 ? (bytes >> 20) + "m" : (bytes >> 10) + "k";
  }

  private static String yes(boolean b) {
    return b ? "yes" : "no";
  }

  private static String pct(double p) {
    return String.format(Locale.ROOT, "%.3g %%", 100 * p);
  }
}
