package dev.idem.bench;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Pattern;
import org.openjdk.jmh.profile.GCProfiler;
import org.openjdk.jmh.results.Result;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.RunnerException;
import org.openjdk.jmh.runner.options.ChainedOptionsBuilder;
import org.openjdk.jmh.runner.options.TimeValue;

/**
 * {@code bin/idem-bench hotpath [--quick] [--sizes N,N] [--out DIR]} (issue #18): FingerprintSet
 * against fastutil's {@code LongOpenHashSet} (insert, present and absent queries, the 70/30 mixed
 * {@code addIfAbsent} stream, retained bytes per key), and the blocked Bloom filter's job-style
 * batch query with hashing against Guava's {@code mightContain} at p = 0.01 and 0.001, plus the
 * allocation per key of the batch path ({@code -prof gc}). Prints medians and ratios.
 */
final class HotPathRun {

  static final String USAGE = "usage: idem-bench hotpath [--quick] [--sizes N,N,...] [--out DIR]";

  /** Iteration counts and the sizes; the full plan is n = 10 M and 100 M. */
  record Plan(List<Long> sizes, int shotWarmups, int shotRuns, int warmups, int runs, int seconds) {
    static final Plan FULL = new Plan(List.of(10_000_000L, 100_000_000L), 1, 3, 2, 3, 2);
    static final Plan QUICK = new Plan(List.of(1_000_000L), 1, 2, 1, 2, 1);

    Plan withSizes(List<Long> s) {
      return new Plan(s, shotWarmups, shotRuns, warmups, runs, seconds);
    }
  }

  static final String[] SETS = {"fingerprint-set", "longset"};
  static final String[] FPPS = {"0.01", "0.001"};

  private final Plan plan;
  private final Path outDir;
  private final ForkRunner forks;

  /** "n|metric|contender" (and fpp for the filters) → median ns per operation. */
  private final Map<String, Double> medians = new TreeMap<>();

  private final Map<String, double[]> iterations = new TreeMap<>();
  private final Map<String, Double> allocation = new TreeMap<>();
  private final Map<String, double[]> probes = new TreeMap<>();

  HotPathRun(Plan plan, Path outDir) {
    this.plan = plan;
    this.outDir = outDir;
    this.forks = new ForkRunner(outDir, List.of());
  }

  static void main(String[] args) throws Exception {
    boolean quick = false;
    List<Long> sizes = null;
    Path out = Path.of("bench-results");
    for (int i = 1; i < args.length; i++) {
      switch (args[i]) {
        case "--quick" -> quick = true;
        case "--sizes" -> sizes = parseSizes(args[++i]);
        case "--out" -> out = Path.of(args[++i]);
        default -> {
          System.err.println("unknown option " + args[i] + "\n" + USAGE);
          System.exit(2);
        }
      }
    }
    Plan plan = quick ? Plan.QUICK : Plan.FULL;
    if (sizes != null) {
      plan = plan.withSizes(sizes);
    }
    String stamp =
        java.time.LocalDateTime.now()
            .format(java.time.format.DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss"));
    Path dir = out.resolve("hotpath-" + stamp);
    Files.createDirectories(dir);
    new HotPathRun(plan, dir).run(String.join(" ", args));
  }

  private static List<Long> parseSizes(String list) {
    List<Long> sizes = new ArrayList<>();
    for (String s : list.split(",")) {
      sizes.add(Long.parseLong(s.trim().replace("_", "")));
    }
    return sizes;
  }

  void run(String command) throws RunnerException, IOException, InterruptedException {
    long start = System.nanoTime();
    String loadBefore = MachineInfo.loadAverage();
    ForkRunner.log("results and JMH logs go to " + outDir);
    String sb = Pattern.quote(StructureBenchmark.class.getName());
    String bb = Pattern.quote(BloomBatchBenchmark.class.getName());
    TimeValue t = TimeValue.seconds(plan.seconds());
    for (long n : plan.sizes()) {
      String ns = Long.toString(n);
      // keys long[2n] + the set (≤ 24 B/key) + a spare set while the last one is collected
      long setNeed = 16 * n + 2 * 24 * n + 5 * n;
      collect(
          "set-insert-n" + n,
          forks
              .options("set-insert-n" + n, setNeed)
              .include(sb + "\\.insert$")
              .param("structure", SETS)
              .param("n", ns)
              .warmupIterations(plan.shotWarmups())
              .measurementIterations(plan.shotRuns())
              .operationsPerInvocation((int) n));
      collect(
          "set-mixed-n" + n,
          forks
              .options("set-mixed-n" + n, setNeed + 6 * n)
              .include(sb + "\\.mixed$")
              .param("structure", SETS)
              .param("n", ns)
              .warmupIterations(plan.shotWarmups())
              .measurementIterations(plan.shotRuns())
              .operationsPerInvocation(StructureBenchmark.mixedOps((int) n)));
      collect(
          "set-query-n" + n,
          forks
              .options("set-query-n" + n, 16 * n + 24 * n + 16 * 10_000_000L)
              .include(sb + "\\.(positive|negative)Query$")
              .param("structure", SETS)
              .param("n", ns)
              .warmupIterations(plan.warmups())
              .warmupTime(t)
              .measurementIterations(plan.runs())
              .measurementTime(t));
      for (String set : SETS) {
        probe(set, n);
      }
      // the filter (≤ 2 B/key) and two sampled arenas of ≤ 10 M keys (≈ 70 B each)
      long bloomNeed = 2 * n + 2 * 70 * Math.min(n, 10_000_000L);
      collect(
          "bloom-guava-n" + n,
          forks
              .options("bloom-guava-n" + n, bloomNeed)
              .include(bb + "\\.(positive|negative)Query$")
              .param("contender", "guava")
              .param("n", ns)
              .param("fpp", FPPS)
              .warmupIterations(plan.warmups())
              .warmupTime(t)
              .measurementIterations(plan.runs())
              .measurementTime(t));
      collect(
          "bloom-blocked-n" + n,
          forks
              .options("bloom-blocked-n" + n, bloomNeed)
              .include(bb + "\\.(positive|negative)(Query|JobBatch)$")
              .param("contender", "blocked")
              .param("n", ns)
              .param("fpp", FPPS)
              .warmupIterations(plan.warmups())
              .warmupTime(t)
              .measurementIterations(plan.runs())
              .measurementTime(t));
    }
    // Allocation per key of the job's batch path (hash + prefetch + probe), filter and exact set.
    long small = 1_000_000L;
    collect(
        "alloc",
        forks
            .options("alloc", 2 * 70 * small + 32 * small)
            .include(bb + "\\.(positive|negative)(JobBatch|Query)$")
            .param("contender", "blocked", "exact")
            .param("n", Long.toString(small))
            .param("fpp", "0.001")
            .addProfiler(GCProfiler.class)
            .warmupIterations(1)
            .warmupTime(t)
            .measurementIterations(2)
            .measurementTime(t));
    String report =
        header(command, loadBefore, Duration.ofNanos(System.nanoTime() - start)) + tables();
    Files.writeString(outDir.resolve("report.md"), report, StandardCharsets.UTF_8);
    System.out.println();
    System.out.println(report);
  }

  private void collect(String group, ChainedOptionsBuilder options) throws RunnerException {
    Collection<RunResult> results = forks.run(group, options);
    for (RunResult r : results) {
      String benchmark = r.getParams().getBenchmark();
      String method = benchmark.substring(benchmark.lastIndexOf('.') + 1);
      String n = r.getParams().getParam("n");
      String who =
          r.getParams().getParam("structure") != null
              ? r.getParams().getParam("structure")
              : r.getParams().getParam("contender") + "@" + r.getParams().getParam("fpp");
      String key = (group.equals("alloc") ? "alloc|" : "") + n + "|" + method + "|" + who;
      double[] scores = ResultTable.iterationScores(r);
      iterations.put(key, scores);
      medians.put(key, ResultTable.median(scores));
      Result<?> norm = r.getSecondaryResults().get("gc.alloc.rate.norm");
      if (norm != null) {
        allocation.put(key, norm.getScore());
      }
    }
  }

  /** Retained heap of one set with n keys, measured by {@link MemoryProbe} in its own JVM. */
  private void probe(String set, long n) throws IOException, InterruptedException {
    long heap = ForkRunner.heapMiB(3 * 24 * n);
    List<String> flags =
        List.of(
            "-Xms" + heap + "m", "-Xmx" + heap + "m", "-XX:+AlwaysPreTouch", ForkRunner.THP_FLAG);
    forks.noteFlags("memory-" + set + "-n" + n, flags);
    ForkRunner.log("memory-" + set + "-n" + n + ": running");
    String[] f =
        MemoryProbe.inOwnJvm(set, n, flags, outDir.resolve("memory-" + set + "-n" + n + ".log"));
    if (f != null) {
      probes.put(
          n + "|" + set, new double[] {Double.parseDouble(f[2]) / n, Double.parseDouble(f[3]) / n});
    }
    ForkRunner.log("memory-" + set + "-n" + n + ": done");
  }

  private String header(String command, String loadBefore, Duration took) {
    StringBuilder sb = new StringBuilder("## idem-bench hotpath\n\n");
    sb.append("- command: `bin/idem-bench ").append(command).append("`\n");
    sb.append("- machine: ").append(MachineInfo.summary()).append('\n');
    sb.append("- JVM flags per group (forks = 1):\n");
    for (String f : forks.flagsSeen()) {
      sb.append("  - ").append(f).append('\n');
    }
    sb.append("- load average before / after: ")
        .append(loadBefore)
        .append(" / ")
        .append(MachineInfo.loadAverage())
        .append('\n');
    sb.append("- wall time: ").append(took.toMinutes()).append(" min\n\n");
    return sb.toString();
  }

  private String tables() {
    StringBuilder sb = new StringBuilder();
    sb.append("### FingerprintSet vs fastutil LongOpenHashSet (ns per operation, medians)\n\n")
        .append("| n | operation | FingerprintSet | LongOpenHashSet | ratio | FS iterations |\n")
        .append("|---|---|---:|---:|---:|---|\n");
    String[][] ops = {
      {"insert", "insert (pre-sized)"},
      {"positiveQuery", "query, present"},
      {"negativeQuery", "query, absent"},
      {"mixed", "70/30 addIfAbsent"}
    };
    for (long n : plan.sizes()) {
      for (String[] op : ops) {
        String fs = n + "|" + op[0] + "|fingerprint-set";
        String ls = n + "|" + op[0] + "|longset";
        sb.append(
            String.format(
                Locale.ROOT,
                "| %s | %s | %s | %s | %s | %s |%n",
                ResultTable.count(n),
                op[1],
                num(medians.get(fs)),
                num(medians.get(ls)),
                ratio(medians.get(fs), medians.get(ls)),
                list(iterations.get(fs))));
      }
      for (String set : SETS) {
        double[] p = probes.get(n + "|" + set);
        if (p != null) {
          sb.append(
              String.format(
                  Locale.ROOT,
                  "| %s | bytes/key %s | heap %.2f | JOL %.2f | | |%n",
                  ResultTable.count(n),
                  set,
                  p[0],
                  p[1]));
        }
      }
    }
    sb.append(
        "\nratio = FingerprintSet / LongOpenHashSet (target ≤ 1.5). fastutil holds the 64-bit hi"
            + " half only.\n\n");
    sb.append("### Bloom queries with hashing (ns per key, medians)\n\n")
        .append(
            "| n | p | query | Guava mightContain | blocked key by key | blocked job batch |"
                + " Guava / key by key | Guava / job batch |\n")
        .append("|---|---|---|---:|---:|---:|---:|---:|\n");
    for (long n : plan.sizes()) {
      for (String p : FPPS) {
        for (String kind : new String[] {"positive", "negative"}) {
          Double g = medians.get(n + "|" + kind + "Query|guava@" + p);
          Double k = medians.get(n + "|" + kind + "Query|blocked@" + p);
          Double j = medians.get(n + "|" + kind + "JobBatch|blocked@" + p);
          sb.append(
              String.format(
                  Locale.ROOT,
                  "| %s | %s | %s | %s | %s | %s | %s | %s |%n",
                  ResultTable.count(n),
                  p,
                  kind,
                  num(g),
                  num(k),
                  num(j),
                  ratio(g, k),
                  ratio(g, j)));
        }
      }
    }
    sb.append("\n### Allocation per key (JMH -prof gc, gc.alloc.rate.norm, n = 1 M)\n\n")
        .append("| path | contender | B/op |\n|---|---|---:|\n");
    for (Map.Entry<String, Double> e : allocation.entrySet()) {
      String[] f = e.getKey().split("\\|");
      sb.append(String.format(Locale.ROOT, "| %s | %s | %.3f |%n", f[2], f[3], e.getValue()));
    }
    return sb.toString();
  }

  private static String num(Double v) {
    return v == null ? "–" : String.format(Locale.ROOT, "%.1f", v);
  }

  private static String ratio(Double a, Double b) {
    return a == null || b == null ? "–" : String.format(Locale.ROOT, "%.2f×", a / b);
  }

  private static String list(double[] v) {
    if (v == null) {
      return "";
    }
    StringBuilder sb = new StringBuilder();
    for (double d : v) {
      sb.append(sb.length() == 0 ? "" : ", ").append(String.format(Locale.ROOT, "%.1f", d));
    }
    return sb.toString();
  }
}
