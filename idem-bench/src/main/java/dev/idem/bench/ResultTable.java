package dev.idem.bench;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import org.openjdk.jmh.results.BenchmarkResult;
import org.openjdk.jmh.results.IterationResult;
import org.openjdk.jmh.results.RunResult;

/**
 * Turns JMH results and accuracy records into markdown: one row per contender and n, ratios against
 * Guava, and the targets of the benchmark issue evaluated from the same numbers. Every timing is
 * the median of the measurement iterations (JMH's own score is their mean).
 */
public final class ResultTable {

  enum Metric {
    INSERT,
    POSITIVE,
    NEGATIVE,
    FP_INSERT,
    FP_POSITIVE,
    FP_NEGATIVE,
    BATCH_INSERT,
    BATCH_POSITIVE,
    BATCH_NEGATIVE,
    HASH_BATCH_INSERT,
    HASH_BATCH_POSITIVE,
    HASH_BATCH_NEGATIVE
  }

  private static final List<Metric> HASHING =
      List.of(Metric.INSERT, Metric.POSITIVE, Metric.NEGATIVE);
  private static final List<Metric> HASH_BATCH =
      List.of(Metric.HASH_BATCH_INSERT, Metric.HASH_BATCH_POSITIVE, Metric.HASH_BATCH_NEGATIVE);

  /** (n, contender) → metric → median ns per operation. */
  private final Map<Long, Map<String, EnumMap<Metric, Double>>> cells = new TreeMap<>();

  /** Snapshot load mode → iteration times in ms. */
  private final Map<String, double[]> snapshotLoads = new TreeMap<>();

  private final Map<Long, Map<String, Accuracy>> accuracy = new TreeMap<>();
  private long snapshotCapacity;
  private long snapshotBytes;

  public void add(Collection<RunResult> results) {
    for (RunResult r : results) {
      String benchmark = r.getParams().getBenchmark();
      String method = benchmark.substring(benchmark.lastIndexOf('.') + 1);
      double[] scores = iterationScores(r);
      if (benchmark.contains(SnapshotLoadBenchmark.class.getSimpleName())) {
        snapshotLoads.put(method, scores);
        continue;
      }
      Metric metric = metric(benchmark, method);
      long n = Long.parseLong(r.getParams().getParam("n"));
      String contender = r.getParams().getParam("contender");
      row(n, contender).put(metric, median(scores));
    }
  }

  public void addAccuracy(List<Accuracy> records) {
    for (Accuracy a : records) {
      accuracy.computeIfAbsent(a.n(), k -> new TreeMap<>()).put(a.contender(), a);
    }
  }

  public void snapshotFile(long capacity, long bytes) {
    snapshotCapacity = capacity;
    snapshotBytes = bytes;
  }

  private static Metric metric(String benchmark, String method) {
    String base = method.replace("BatchHash", "").replace("Batch", "");
    Metric m =
        switch (base) {
          case "insert" -> Metric.INSERT;
          case "positiveQuery" -> Metric.POSITIVE;
          case "negativeQuery" -> Metric.NEGATIVE;
          default -> throw new IllegalArgumentException("unknown benchmark method " + method);
        };
    int shift;
    if (benchmark.contains(HashBatchBenchmark.class.getSimpleName())) {
      shift = 9;
    } else if (benchmark.contains(FingerprintBenchmark.class.getSimpleName())) {
      shift = method.endsWith("Batch") ? 6 : 3;
    } else {
      shift = 0;
    }
    return Metric.values()[m.ordinal() + shift];
  }

  private EnumMap<Metric, Double> row(long n, String contender) {
    return cells
        .computeIfAbsent(n, k -> new TreeMap<>())
        .computeIfAbsent(contender, k -> new EnumMap<>(Metric.class));
  }

  private Double cell(long n, String contender, Metric m) {
    Map<String, EnumMap<Metric, Double>> byContender = cells.get(n);
    EnumMap<Metric, Double> r = byContender == null ? null : byContender.get(contender);
    return r == null ? null : r.get(m);
  }

  private Accuracy accuracy(long n, String contender) {
    Map<String, Accuracy> m = accuracy.get(n);
    return m == null ? null : m.get(contender);
  }

  /** Guava's time over this contender's: above 1 means faster than Guava. */
  private Double vsGuava(long n, String contender, Metric m) {
    return vsGuava(n, contender, m, m);
  }

  /** Guava's time for {@code guavaMetric} over this contender's for {@code mine}. */
  private Double vsGuava(long n, String contender, Metric m, Metric guavaMetric) {
    Double mine = cell(n, contender, m);
    Double guava = cell(n, "guava", guavaMetric);
    return mine == null || guava == null ? null : guava / mine;
  }

  /** Single-key time over batch time, both from fingerprints: above 1 means batching helps. */
  private Double batchGain(long n, String contender, Metric single, Metric batch) {
    Double s = cell(n, contender, single);
    Double b = cell(n, contender, batch);
    return s == null || b == null ? null : s / b;
  }

  private List<Long> sizes() {
    List<Long> ns = new ArrayList<>(cells.keySet());
    accuracy.keySet().stream().filter(n -> !ns.contains(n)).forEach(ns::add);
    ns.sort(null);
    return ns;
  }

  public String render() {
    StringBuilder sb = new StringBuilder();
    renderHashing(sb);
    renderFingerprints(sb);
    renderAccuracy(sb);
    renderBatchGain(sb);
    renderSnapshot(sb);
    renderTargets(sb);
    return sb.toString();
  }

  /** The numbers a user of each library gets: hashing included. */
  private void renderHashing(StringBuilder sb) {
    sb.append(
            "### Filters at p = 0.001, from key bytes (hashing included; ns per operation, "
                + "median of iterations)\n\n")
        .append(
            "| n | contender | bits/key | measured FPR | insert | pos query | neg query "
                + "| insert ×Guava | pos ×Guava | neg ×Guava | batch+hash insert | batch+hash pos "
                + "| batch+hash neg | b+h insert ×Guava | b+h pos ×Guava | b+h neg ×Guava |\n")
        .append(
            "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
    for (long n : sizes()) {
      for (String c : Contender.NAMES) {
        Accuracy a = accuracy(n, c);
        if (a == null && (cells.get(n) == null || !cells.get(n).containsKey(c))) {
          continue;
        }
        sb.append("| ")
            .append(count(n))
            .append(" | ")
            .append(c)
            .append(" | ")
            .append(a == null ? "–" : num(a.bitsPerKey(), 2))
            .append(" | ")
            .append(a == null ? "–" : pct(a.measuredFpp()));
        for (List<Metric> ms : List.of(HASHING, HASH_BATCH)) {
          for (Metric m : ms) {
            sb.append(" | ").append(ns(cell(n, c, m)));
          }
          for (int i = 0; i < ms.size(); i++) {
            sb.append(" | ").append(ratio(vsGuava(n, c, ms.get(i), HASHING.get(i))));
          }
        }
        sb.append(" |\n");
      }
    }
    sb.append(
        "\n\"×Guava\" is Guava's time (single key, hashing included) over the contender's "
            + "(above 1 = faster). \"batch+hash\": per batch of "
            + HashBatchBenchmark.BATCH
            + " keys, XXH3-128 `fingerprintInto` a long[], then one putAll/mightContainAll. "
            + "Positive queries ask for inserted keys, negative ones for fresh keys.\n\n");
  }

  /** idem's filters alone, from precomputed fingerprints. */
  private void renderFingerprints(StringBuilder sb) {
    sb.append("### idem's filters from precomputed fingerprints (no hashing; ns per operation)\n\n")
        .append(
            "| n | filter | fp insert | fp pos | fp neg | batch insert | batch pos "
                + "| batch neg |\n|---|---|---:|---:|---:|---:|---:|---:|\n");
    for (long n : cells.keySet()) {
      for (String c : List.of("bloom", "blocked", "partitioned")) {
        if (!cells.get(n).containsKey(c)) {
          continue;
        }
        sb.append("| ").append(count(n)).append(" | ").append(c);
        for (Metric m : Arrays.copyOfRange(Metric.values(), 3, 9)) {
          sb.append(" | ").append(ns(cell(n, c, m)));
        }
        sb.append(" |\n");
      }
    }
    sb.append(
        "\n\"batch\": ranged putAll/mightContainAll on "
            + FingerprintBenchmark.BATCH
            + " fingerprints at a time, straight from the long[2n] (no copy).\n\n");
  }

  private void renderAccuracy(StringBuilder sb) {
    sb.append("### False-positive rate on fresh keys\n\n")
        .append(
            "| n | contender | bits/key | expected FPR | measured FPR | false positives "
                + "| Wilson 95 % interval | expected inside |\n")
        .append("|---|---|---:|---:|---:|---:|---|---|\n");
    for (Map.Entry<Long, Map<String, Accuracy>> e : accuracy.entrySet()) {
      for (String c : Contender.NAMES) {
        Accuracy a = e.getValue().get(c);
        if (a == null) {
          continue;
        }
        double[] ci = a.wilson95();
        sb.append(
            String.format(
                Locale.ROOT,
                "| %s | %s | %.2f | %s | %s | %,d / %,d | [%s, %s] | %s |%n",
                count(a.n()),
                c,
                a.bitsPerKey(),
                pct(a.expectedFpp()),
                pct(a.measuredFpp()),
                a.falsePositives(),
                a.trials(),
                pct(ci[0]),
                pct(ci[1]),
                a.consistent() ? "yes" : "**no**"));
      }
    }
    sb.append(
        "\nExpected: idem's filters use their layout's own formula at n "
            + "(`falsePositiveRate(n)`); Guava its `expectedFpp()`; commons `Shape.getProbability(n)`.\n\n");
  }

  private void renderBatchGain(StringBuilder sb) {
    sb.append("### Do batch operations help? (single-key time / batch time, from fingerprints)\n\n")
        .append("| n | filter | insert | pos query | neg query |\n|---|---|---:|---:|---:|\n");
    for (long n : cells.keySet()) {
      for (String c : List.of("bloom", "blocked", "partitioned")) {
        Double i = batchGain(n, c, Metric.FP_INSERT, Metric.BATCH_INSERT);
        Double p = batchGain(n, c, Metric.FP_POSITIVE, Metric.BATCH_POSITIVE);
        Double q = batchGain(n, c, Metric.FP_NEGATIVE, Metric.BATCH_NEGATIVE);
        if (i != null || p != null || q != null) {
          sb.append("| ")
              .append(count(n))
              .append(" | ")
              .append(c)
              .append(" | ")
              .append(ratio(i))
              .append(" | ")
              .append(ratio(p))
              .append(" | ")
              .append(ratio(q))
              .append(" |\n");
        }
      }
    }
    sb.append('\n');
  }

  private void renderSnapshot(StringBuilder sb) {
    if (snapshotLoads.isEmpty()) {
      return;
    }
    sb.append(
            String.format(
                Locale.ROOT,
                "### Loading a snapshot of a classic filter for %s keys at 0.1 %% (%,.0f MiB file)%n%n",
                count(snapshotCapacity),
                snapshotBytes / 1048576.0))
        .append("| load | median ms | all runs (ms) | page cache |\n|---|---:|---|---|\n");
    for (Map.Entry<String, double[]> e : snapshotLoads.entrySet()) {
      String how =
          e.getKey().equals("map")
              ? "FilterSnapshot.map (mmap, private)"
              : "FilterSnapshot.read (into heap)";
      StringBuilder runs = new StringBuilder();
      for (double v : e.getValue()) {
        runs.append(runs.length() == 0 ? "" : ", ").append(num(v, 0));
      }
      sb.append("| ")
          .append(how)
          .append(" | ")
          .append(num(median(e.getValue()), 0))
          .append(" | ")
          .append(runs)
          .append(" | warm (file just written) |\n");
    }
    sb.append('\n');
  }

  private void renderTargets(StringBuilder sb) {
    List<Long> ns = sizes();
    if (ns.isEmpty()) {
      return;
    }
    long big = ns.get(ns.size() - 1);
    sb.append("### Targets\n\n");
    Double pos = vsGuava(big, "blocked", Metric.POSITIVE);
    Double neg = vsGuava(big, "blocked", Metric.NEGATIVE);
    Double bpos = vsGuava(big, "blocked", Metric.HASH_BATCH_POSITIVE, Metric.POSITIVE);
    Double bneg = vsGuava(big, "blocked", Metric.HASH_BATCH_NEGATIVE, Metric.NEGATIVE);
    sb.append(
        String.format(
            Locale.ROOT,
            "- (a) blocked queries ≥ 3× Guava at n = %s: single key with hashing %s (pos %s, neg %s);"
                + " batch+hash %s (pos %s, neg %s)%n",
            count(big),
            atLeast3(pos, neg),
            ratio(pos),
            ratio(neg),
            atLeast3(bpos, bneg),
            ratio(bpos),
            ratio(bneg)));
    for (long n : ns) {
      Double ins = vsGuava(n, "bloom", Metric.INSERT);
      Double p = vsGuava(n, "bloom", Metric.POSITIVE);
      Double q = vsGuava(n, "bloom", Metric.NEGATIVE);
      Accuracy mine = accuracy(n, "bloom");
      Accuracy guava = accuracy(n, "guava");
      boolean speed = ins != null && p != null && q != null && ins >= 1 && p >= 1 && q >= 1;
      boolean space = mine != null && guava != null && mine.bitsPerKey() <= guava.bitsPerKey();
      sb.append(
          String.format(
              Locale.ROOT,
              "- (b) bloom vs Guava at n = %s: speed %s (insert %s, pos %s, neg %s); "
                  + "bits/key %s (%s vs %s)%n",
              count(n),
              speed ? "met" : "missed",
              ratio(ins),
              ratio(p),
              ratio(q),
              space ? "met" : "missed",
              mine == null ? "–" : num(mine.bitsPerKey(), 2),
              guava == null ? "–" : num(guava.bitsPerKey(), 2)));
    }
    List<String> off = new ArrayList<>();
    int checked = 0;
    for (Map<String, Accuracy> m : accuracy.values()) {
      for (Accuracy acc : m.values()) {
        checked++;
        if (!acc.consistent()) {
          off.add(acc.contender() + "@" + count(acc.n()));
        }
      }
    }
    sb.append(
        String.format(
            Locale.ROOT,
            "- (c) measured FPR consistent with expected (Wilson 95 %%): %s (%d of %d rows inside%s)%n",
            off.isEmpty() && checked > 0 ? "met" : "missed",
            checked - off.size(),
            checked,
            off.isEmpty() ? "" : "; outside: " + String.join(", ", off)));
    for (long n : cells.keySet()) {
      StringBuilder gains = new StringBuilder();
      for (String c : List.of("bloom", "blocked", "partitioned")) {
        gains.append(
            String.format(
                Locale.ROOT,
                "%s%s insert %s / pos %s / neg %s",
                gains.length() == 0 ? "" : "; ",
                c,
                ratio(batchGain(n, c, Metric.FP_INSERT, Metric.BATCH_INSERT)),
                ratio(batchGain(n, c, Metric.FP_POSITIVE, Metric.BATCH_POSITIVE)),
                ratio(batchGain(n, c, Metric.FP_NEGATIVE, Metric.BATCH_NEGATIVE))));
      }
      sb.append("- (d) batch gain at n = ")
          .append(count(n))
          .append(": ")
          .append(gains)
          .append('\n');
    }
    sb.append('\n');
  }

  private static String atLeast3(Double a, Double b) {
    return a != null && b != null && a >= 3 && b >= 3 ? "met" : "missed";
  }

  static double[] iterationScores(RunResult r) {
    List<Double> scores = new ArrayList<>();
    for (BenchmarkResult b : r.getBenchmarkResults()) {
      for (IterationResult i : b.getIterationResults()) {
        scores.add(i.getPrimaryResult().getScore());
      }
    }
    return scores.stream().mapToDouble(Double::doubleValue).toArray();
  }

  static double median(double[] values) {
    double[] v = values.clone();
    Arrays.sort(v);
    int m = v.length / 2;
    return v.length % 2 == 1 ? v[m] : (v[m - 1] + v[m]) / 2;
  }

  static String count(long n) {
    if (n % 1_000_000 == 0) {
      return n / 1_000_000 + " M";
    }
    return String.format(Locale.ROOT, "%,d", n);
  }

  private static String ns(Double v) {
    return v == null ? "–" : num(v, 1);
  }

  private static String ratio(Double v) {
    return v == null ? "–" : num(v, 2) + "×";
  }

  private static String pct(double v) {
    return String.format(Locale.ROOT, "%.4f %%", v * 100);
  }

  private static String num(double v, int decimals) {
    return String.format(Locale.ROOT, "%,." + decimals + "f", v);
  }
}
