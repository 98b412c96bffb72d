package dev.idem.bench;

import java.util.List;
import java.util.Locale;
import java.util.Map;

/** The markdown tables of {@code bin/idem-bench windows}: speed and state, then verdicts. */
final class WindowTable {

  private static final String BASELINE = "stream-only";
  private static final String REFERENCE = "hashmap-ttl";

  private final Map<String, WindowResult> results;

  WindowTable(Map<String, WindowResult> results) {
    this.results = results;
  }

  String render() {
    StringBuilder sb = new StringBuilder();
    double base = nsPerEvent(results.get(BASELINE));
    double ref = WindowResult.median(results.get(REFERENCE).runRates());
    sb.append(
        "| contender | events/s (median of runs) | runs min–max | median 1/50-slice events/s"
            + " | ns/event | ns/event beyond the stream | events/s vs HashMap | GC share of time"
            + " | peak entries held"
            + " | peak state bytes | bytes per held entry | state bytes measured by |\n");
    sb.append("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|\n");
    for (WindowResult r : results.values()) {
      List<Double> rates = r.runRates();
      double median = WindowResult.median(rates);
      double ns = nsPerEvent(r);
      sb.append(
          String.format(
              Locale.ROOT,
              "| %s | %s | %s–%s | %s | %.0f | %s | %s | %.0f %% |",
              r.name,
              si(median),
              si(min(rates)),
              si(max(rates)),
              si(r.medianSliceRate()),
              ns,
              r.name.equals(BASELINE) ? "–" : String.format(Locale.ROOT, "%.0f", ns - base),
              r.name.equals(BASELINE) ? "–" : String.format(Locale.ROOT, "%.2f×", median / ref),
              100 * r.gcShare()));
      sb.append(state(r)).append('\n');
    }
    sb.append('\n')
        .append(heapCheck())
        .append('\n')
        .append(verdicts())
        .append('\n')
        .append(agreement());
    for (WindowResult r : results.values()) {
      for (String p : r.problems) {
        sb.append("- **").append(r.name).append("**: ").append(p).append('\n');
      }
    }
    return sb.toString();
  }

  private static double nsPerEvent(WindowResult r) {
    return 1e9 / WindowResult.median(r.runRates());
  }

  /** Peak bytes, bytes per entry at that point, and how the bytes were measured. */
  private static String state(WindowResult r) {
    if (r.name.equals(BASELINE)) {
      return " – | – | – | – |";
    }
    boolean jol = r.samples.stream().anyMatch(p -> p.bytes() >= 0);
    List<WindowResult.Point> points = jol ? r.samples : r.heap;
    WindowResult.Point peak = null;
    for (WindowResult.Point p : points) {
      if (peak == null || p.bytes() > peak.bytes()) {
        peak = p;
      }
    }
    String peakHeld = String.format(Locale.ROOT, "%,d", r.results.getOrDefault("peakHeld", 0L));
    if (peak == null) {
      return " " + peakHeld + " | – | – | – |";
    }
    return String.format(
        Locale.ROOT,
        " %s | %s | %.1f | %s |",
        peakHeld,
        mib(peak.bytes()),
        (double) peak.bytes() / peak.held(),
        jol
            ? "JOL walk of the deduplicator every n/200 events"
            : "heap used after full GCs minus baseline, every n/20 events");
  }

  /** idem's JOL figures against its heap samples, to show the two methods agree. */
  private String heapCheck() {
    StringBuilder sb =
        new StringBuilder(
            "Heap after full GCs (every n/20 events, minus the"
                + " baseline before the contender existed), peak over the samples:");
    for (WindowResult r : results.values()) {
      long peak = 0;
      long held = 0;
      for (WindowResult.Point p : r.heap) {
        if (p.bytes() > peak) {
          peak = p.bytes();
          held = p.held();
        }
      }
      if (!r.heap.isEmpty() && !r.name.equals(BASELINE)) {
        sb.append(
            String.format(
                Locale.ROOT,
                " %s %s (%,d held, %.1f B each);",
                r.name,
                mib(peak),
                held,
                held == 0 ? 0.0 : (double) peak / held));
      }
    }
    return sb.append('\n').toString();
  }

  private String verdicts() {
    StringBuilder sb = new StringBuilder("| generated event kind | events |");
    StringBuilder rule = new StringBuilder("|---|---:|");
    for (WindowResult r : results.values()) {
      if (!r.name.equals(BASELINE)) {
        sb.append(' ').append(r.name).append(" kept / dup / late |");
        rule.append("---:|");
      }
    }
    sb.append('\n').append(rule).append('\n');
    WindowResult any = results.get(REFERENCE);
    for (String kind : any.counts.keySet()) {
      long[] c = any.counts.get(kind);
      sb.append(String.format(Locale.ROOT, "| %s | %,d |", kind, c[0] + c[1] + c[2]));
      for (WindowResult r : results.values()) {
        if (!r.name.equals(BASELINE)) {
          long[] k = r.counts.get(kind);
          sb.append(String.format(Locale.ROOT, " %,d / %,d / %,d |", k[0], k[1], k[2]));
        }
      }
      sb.append('\n');
    }
    sb.append("| **all** | |");
    for (WindowResult r : results.values()) {
      if (!r.name.equals(BASELINE)) {
        sb.append(
            String.format(Locale.ROOT, " %,d / %,d / %,d |", r.total(0), r.total(1), r.total(2)));
      }
    }
    return sb.append('\n').toString();
  }

  /** Sliding idem against the HashMap on every event that is not late. */
  private String agreement() {
    WindowResult idem = results.get("idem-sliding");
    WindowResult map = results.get(REFERENCE);
    long idemKept = keptNotLate(idem);
    long mapKept = keptNotLate(map);
    boolean same =
        idemKept == mapKept
            && idem.results.get("keptChecksum").equals(map.results.get("keptChecksum"));
    return String.format(
        Locale.ROOT,
        "%nAgreement on the events that are not late (sliding vs"
            + " HashMap): idem kept %,d, the HashMap %,d; checksums of the kept event indices %s.%n",
        idemKept,
        mapKept,
        same ? "equal (the same events kept)" : "DIFFER");
  }

  private static long keptNotLate(WindowResult r) {
    long s = 0;
    for (Map.Entry<String, long[]> e : r.counts.entrySet()) {
      if (!e.getKey().startsWith("LATE")) {
        s += e.getValue()[0];
      }
    }
    return s;
  }

  static String si(double perSecond) {
    return perSecond >= 1e6
        ? String.format(Locale.ROOT, "%.2f M", perSecond / 1e6)
        : String.format(Locale.ROOT, "%.0f k", perSecond / 1e3);
  }

  static String mib(long bytes) {
    return String.format(Locale.ROOT, "%.0f MiB", bytes / 1048576.0);
  }

  private static double min(List<Double> v) {
    return v.stream().mapToDouble(Double::doubleValue).min().orElse(Double.NaN);
  }

  private static double max(List<Double> v) {
    return v.stream().mapToDouble(Double::doubleValue).max().orElse(Double.NaN);
  }
}
