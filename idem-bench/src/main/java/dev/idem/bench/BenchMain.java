package dev.idem.bench;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Locale;
import java.util.regex.Pattern;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.RunnerException;
import org.openjdk.jmh.runner.options.ChainedOptionsBuilder;
import org.openjdk.jmh.runner.options.OptionsBuilder;
import org.openjdk.jmh.runner.options.TimeValue;

/**
 * {@code bin/idem-bench filters [--quick] [--sizes N,N] [--no-snapshot] [--out DIR]}: runs every
 * filter benchmark side by side and prints one markdown report.
 *
 * <p>The run is split into groups of forks that share a heap size, a benchmark mode and an
 * operations-per-invocation count, because JMH options are global to one {@link Runner} run.
 * Each fork gets a fixed, pre-touched heap sized for what that group holds (first touch of memory
 * is slow on the shared benchmark machine, and a heap that grows mid-run would be timed).
 */
public final class BenchMain {

  private static final long MIB = 1L << 20;

  /** Fills at or above this many keys take long enough that JIT warm-up is done in setup. */
  private static final long BIG = 50_000_000L;

  /**
   * How long each kind of measurement runs; the full plan keeps the whole run near 40 minutes.
   * Inserts are single-shot fills; queries are timed iterations of {@code querySeconds}.
   */
  record Plan(List<Long> sizes, int insertWarmups, int insertRuns, int bigInsertWarmups,
      int bigInsertRuns, int queryWarmups, int queryRuns, int querySeconds,
      long snapshotCapacity, int snapshotRuns) {
    static final Plan FULL = new Plan(List.of(10_000_000L, 100_000_000L), 1, 3, 0, 2, 2, 3, 2,
        500_000_000L, 5);
    static final Plan QUICK = new Plan(List.of(1_000_000L, 10_000_000L), 1, 1, 0, 1, 1, 2, 1,
        50_000_000L, 3);

    Plan withSizes(List<Long> newSizes) {
      return new Plan(newSizes, insertWarmups, insertRuns, bigInsertWarmups, bigInsertRuns,
          queryWarmups, queryRuns, querySeconds, snapshotCapacity, snapshotRuns);
    }
  }

  private final Plan plan;
  private final Path outDir;
  private final Path accuracyFile;
  private final Path cacheDir;
  private final ResultTable table = new ResultTable();
  private final List<String> jvmFlagsSeen = new ArrayList<>();

  private BenchMain(Plan plan, Path outDir) {
    this.plan = plan;
    this.outDir = outDir;
    this.accuracyFile = outDir.resolve("accuracy.tsv");
    this.cacheDir = outDir.resolve("filled-filters");
  }

  public static void main(String[] args) throws Exception {
    if (args.length == 0 || !args[0].equals("filters")) {
      System.err.println("usage: idem-bench filters [--quick] [--sizes N,N,...] [--no-snapshot]"
          + " [--out DIR]");
      System.exit(2);
    }
    Plan plan = Plan.FULL;
    boolean snapshot = true;
    Path out = Path.of("bench-results");
    List<Long> sizes = null;
    for (int i = 1; i < args.length; i++) {
      switch (args[i]) {
        case "--quick" -> plan = Plan.QUICK;
        case "--no-snapshot" -> snapshot = false;
        case "--sizes" -> sizes = parseSizes(args[++i]);
        case "--out" -> out = Path.of(args[++i]);
        default -> {
          System.err.println("unknown option " + args[i]);
          System.exit(2);
        }
      }
    }
    if (sizes != null) {
      plan = plan.withSizes(sizes);
    }
    String stamp = LocalDateTime.now().format(DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss"));
    Path dir = out.resolve("filters-" + stamp);
    Files.createDirectories(dir);
    new BenchMain(plan, dir).run(snapshot, String.join(" ", args));
  }

  private void run(boolean snapshot, String command) throws RunnerException, IOException {
    long start = System.nanoTime();
    String loadBefore = loadAverage();
    log("results and JMH logs go to " + outDir);
    String[] names = Contender.NAMES;
    String[] ours = {"bloom", "blocked", "partitioned"};
    Files.createDirectories(cacheDir);
    try {
      for (long n : plan.sizes()) {
        runSize(n, names, ours);
      }
    } finally {
      deleteCache(); // filled filters are ~200 MB each at n = 100 M
    }
    if (snapshot) {
      snapshotGroup();
    }
    table.addAccuracy(Accuracy.readAll(accuracyFile));
    String report = header(command, loadBefore, loadAverage(),
        Duration.ofNanos(System.nanoTime() - start)) + table.render();
    Files.writeString(outDir.resolve("report.md"), report, StandardCharsets.UTF_8);
    System.out.println();
    System.out.println(report);
  }

  /**
   * All groups for one n. The insert group runs first: its forks leave their filled filters in
   * the cache for the query forks.
   */
  private void runSize(long n, String[] names, String[] ours) throws RunnerException {
    int sample = (int) Math.min(n, FilterBenchmark.SAMPLE_KEYS);
    long filter = n * 5 / 2; // ≤ 20 bits/key for every contender at p = 0.001
    long arena = KeyArena.estimateBytes(n, n);
    long fresh = FilterBenchmark.SAMPLE_KEYS;
    long sampleArenas =
        KeyArena.estimateBytes(sample, n) + KeyArena.estimateBytes(fresh, n + fresh);
    long block = KeyArena.estimateBytes(KeyArena.STREAM_BLOCK, n);
    group("insert-n" + n, FilterBenchmark.class, "insert", names, n,
        arena + 2 * filter, true);
    group("query-n" + n, FilterBenchmark.class, "(positive|negative)Query", names, n,
        sampleArenas + 2 * filter + block, false);
    group("fp-insert-n" + n, FingerprintBenchmark.class, "insert(Batch)?", ours, n,
        16 * n + 2 * filter + block, true);
    group("fp-query-n" + n, FingerprintBenchmark.class, "(positive|negative)Query(Batch)?",
        ours, n, 16 * (n + fresh) + 2 * filter + block, false);
  }

  private void deleteCache() throws IOException {
    if (Files.isDirectory(cacheDir)) {
      try (var files = Files.list(cacheDir)) {
        for (Path f : files.toList()) {
          Files.deleteIfExists(f);
        }
      }
      Files.deleteIfExists(cacheDir);
    }
  }

  /** One JMH run: the given methods of one class, for every contender, at one n. */
  private void group(String name, Class<?> benchmark, String methods, String[] contenders,
      long n, long heapNeed, boolean singleShot) throws RunnerException {
    ChainedOptionsBuilder o = options(name, heapNeed)
        .include(Pattern.quote(benchmark.getName()) + "\\.(" + methods + ")$")
        .param("contender", contenders)
        .param("n", Long.toString(n));
    if (singleShot) {
      boolean big = n >= BIG;
      o.warmupIterations(big ? plan.bigInsertWarmups() : plan.insertWarmups())
          .measurementIterations(big ? plan.bigInsertRuns() : plan.insertRuns())
          .operationsPerInvocation(Math.toIntExact(n));
    } else {
      TimeValue t = TimeValue.seconds(plan.querySeconds());
      o.warmupIterations(plan.queryWarmups()).warmupTime(t)
          .measurementIterations(plan.queryRuns()).measurementTime(t);
    }
    runJmh(name, o);
  }

  private void snapshotGroup() throws RunnerException, IOException {
    long capacity = plan.snapshotCapacity();
    Path file = outDir.resolve("snapshot-" + capacity + ".snap").toAbsolutePath();
    long filterBytes = capacity * 15 / 8; // classic layout at 0.1 %: 14.4 bits/key
    try {
      ChainedOptionsBuilder o = options("snapshot", 2 * filterBytes + 256 * MIB)
          .include(Pattern.quote(SnapshotLoadBenchmark.class.getName()) + "\\.(map|read)$")
          .param("file", file.toString())
          .param("capacity", Long.toString(capacity))
          .warmupIterations(1).measurementIterations(plan.snapshotRuns());
      runJmh("snapshot", o);
      if (Files.exists(file)) {
        table.snapshotFile(capacity, Files.size(file));
      }
    } finally {
      Files.deleteIfExists(file); // ~857 MiB: never leave it behind
    }
  }

  private ChainedOptionsBuilder options(String name, long heapNeed) {
    // Headroom for JMH, the JIT and garbage between iterations, rounded to 256 MiB.
    long heap = ((long) (heapNeed * 1.15) + 512 * MIB + 256 * MIB - 1) / (256 * MIB) * 256;
    String[] flags = {"-Xms" + heap + "m", "-Xmx" + heap + "m", "-XX:+AlwaysPreTouch"};
    jvmFlagsSeen.add(name + ": " + String.join(" ", flags));
    return new OptionsBuilder()
        .forks(1)
        .jvmArgs(flags)
        .jvmArgsAppend("-D" + Accuracy.FILE_PROPERTY + "=" + accuracyFile.toAbsolutePath(),
            "-D" + FilterCache.DIR_PROPERTY + "=" + cacheDir.toAbsolutePath())
        .shouldFailOnError(false)
        .timeout(TimeValue.minutes(15))
        .output(outDir.resolve(name + ".jmh.log").toString());
  }

  private void runJmh(String name, ChainedOptionsBuilder options) throws RunnerException {
    long t0 = System.nanoTime();
    log(name + ": running (" + jvmFlagsSeen.get(jvmFlagsSeen.size() - 1) + ")");
    Collection<RunResult> results = new Runner(options.build()).run();
    table.add(results);
    log(String.format(Locale.ROOT, "%s: %d results in %s", name, results.size(),
        Duration.ofNanos(System.nanoTime() - t0).toString().substring(2).toLowerCase()));
  }

  private String header(String command, String loadBefore, String loadAfter, Duration took) {
    StringBuilder sb = new StringBuilder();
    sb.append("## idem-bench filters\n\n")
        .append("- command: `bin/idem-bench ").append(command).append("`\n")
        .append("- machine: ").append(cpuModel()).append(", ")
        .append(Runtime.getRuntime().availableProcessors()).append(" cores; ")
        .append(System.getProperty("java.vm.name")).append(' ')
        .append(System.getProperty("java.runtime.version")).append('\n')
        .append("- JVM flags per group (forks=1, all with a fixed pre-touched heap):\n");
    for (String f : jvmFlagsSeen) {
      sb.append("  - ").append(f).append('\n');
    }
    sb.append("- load average before / after: ").append(loadBefore).append(" / ")
        .append(loadAfter).append('\n')
        .append("- wall time: ").append(took.toMinutes()).append(" min\n\n");
    return sb.toString();
  }

  private static String cpuModel() {
    try {
      for (String line : Files.readAllLines(Path.of("/proc/cpuinfo"))) {
        if (line.startsWith("model name")) {
          return line.substring(line.indexOf(':') + 1).trim();
        }
      }
    } catch (IOException | RuntimeException e) {
      // not Linux: fall through
    }
    return System.getProperty("os.arch");
  }

  private static String loadAverage() {
    try {
      String[] f = Files.readString(Path.of("/proc/loadavg")).trim().split(" ");
      return f[0] + " " + f[1] + " " + f[2];
    } catch (IOException | RuntimeException e) {
      return "unknown";
    }
  }

  private static List<Long> parseSizes(String list) {
    List<Long> sizes = new ArrayList<>();
    for (String s : list.split(",")) {
      sizes.add(Long.parseLong(s.trim().replace("_", "")));
    }
    return sizes;
  }

  private static void log(String message) {
    System.out.println("[" + LocalDateTime.now().format(DateTimeFormatter.ofPattern("HH:mm:ss"))
        + "] " + message);
  }
}
