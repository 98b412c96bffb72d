package dev.idem.bench;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.regex.Pattern;
import org.openjdk.jmh.runner.RunnerException;
import org.openjdk.jmh.runner.options.ChainedOptionsBuilder;
import org.openjdk.jmh.runner.options.TimeValue;

/**
 * {@code bin/idem-bench filters}: every filter benchmark side by side, one markdown report.
 *
 * <p>The run is split into groups of forks that share a heap size, a benchmark mode and an
 * operations-per-invocation count, because JMH options are global to one runner run.
 */
final class FilterRun {

  private static final long MIB = ForkRunner.MIB;

  /** Fills at or above this many keys take long enough that JIT warm-up is done in setup. */
  private static final long BIG = 50_000_000L;

  /**
   * How long each kind of measurement runs. Inserts are single-shot fills; queries are timed
   * iterations of {@code querySeconds}.
   */
  record Plan(
      List<Long> sizes,
      int insertWarmups,
      int insertRuns,
      int bigInsertWarmups,
      int bigInsertRuns,
      int queryWarmups,
      int queryRuns,
      int querySeconds,
      long snapshotCapacity,
      int snapshotRuns) {
    static final Plan FULL =
        new Plan(List.of(10_000_000L, 100_000_000L), 1, 3, 0, 2, 2, 3, 2, 500_000_000L, 5);
    static final Plan QUICK =
        new Plan(List.of(1_000_000L, 10_000_000L), 1, 1, 0, 1, 1, 2, 1, 50_000_000L, 3);

    Plan withSizes(List<Long> newSizes) {
      return new Plan(
          newSizes,
          insertWarmups,
          insertRuns,
          bigInsertWarmups,
          bigInsertRuns,
          queryWarmups,
          queryRuns,
          querySeconds,
          snapshotCapacity,
          snapshotRuns);
    }
  }

  private static final String[] OURS = {"bloom", "blocked", "partitioned"};

  private final Plan plan;
  private final Path outDir;
  private final Path accuracyFile;
  private final Path cacheDir;
  private final ForkRunner forks;
  private final MachineInfo machine = new MachineInfo();
  private final ResultTable table = new ResultTable();

  FilterRun(Plan plan, Path outDir) {
    this.plan = plan;
    this.outDir = outDir;
    this.accuracyFile = outDir.resolve("accuracy.tsv");
    this.cacheDir = outDir.resolve("filled-filters");
    this.forks =
        new ForkRunner(
            outDir,
            List.of(
                "-D" + Accuracy.FILE_PROPERTY + "=" + accuracyFile.toAbsolutePath(),
                "-D" + FilterCache.DIR_PROPERTY + "=" + cacheDir.toAbsolutePath()));
  }

  void run(boolean snapshot, String command) throws RunnerException, IOException {
    long start = System.nanoTime();
    String loadBefore = MachineInfo.loadAverage();
    ForkRunner.log("results and JMH logs go to " + outDir);
    machine.startSampling();
    Files.createDirectories(cacheDir);
    try {
      for (long n : plan.sizes()) {
        runSize(n);
      }
    } finally {
      deleteCache(); // filled filters are ~200 MB each at n = 100 M
    }
    if (snapshot) {
      snapshotGroup();
    }
    machine.stop();
    table.addAccuracy(Accuracy.readAll(accuracyFile));
    String report =
        header(
                command,
                loadBefore,
                MachineInfo.loadAverage(),
                Duration.ofNanos(System.nanoTime() - start))
            + table.render();
    Files.writeString(outDir.resolve("report.md"), report, StandardCharsets.UTF_8);
    System.out.println();
    System.out.println(report);
  }

  /**
   * All groups for one n. The insert group runs first: its forks leave their filled filters in the
   * cache for the query forks.
   */
  private void runSize(long n) throws RunnerException {
    int sample = (int) Math.min(n, FilterBenchmark.SAMPLE_KEYS);
    long filter = n * 5 / 2; // ≤ 20 bits/key for every contender at p = 0.001
    long arena = KeyArena.estimateBytes(n, n);
    long fresh = FilterBenchmark.SAMPLE_KEYS;
    long sampleArenas =
        KeyArena.estimateBytes(sample, n) + KeyArena.estimateBytes(fresh, n + fresh);
    long block = KeyArena.estimateBytes(KeyArena.STREAM_BLOCK, n);
    String fb = FilterBenchmark.class.getName();
    String hb = HashBatchBenchmark.class.getName();
    String fpb = FingerprintBenchmark.class.getName();
    group("insert-n" + n, fb, "insert", Contender.NAMES, n, arena + 2 * filter, true);
    group(
        "query-n" + n,
        fb,
        "(positive|negative)Query",
        Contender.NAMES,
        n,
        sampleArenas + 2 * filter + block,
        false);
    group("hash-batch-insert-n" + n, hb, "insertBatchHash", OURS, n, arena + 2 * filter, true);
    group(
        "hash-batch-query-n" + n,
        hb,
        "(positive|negative)QueryBatchHash",
        OURS,
        n,
        sampleArenas + 2 * filter + block,
        false);
    // The ranged batch API writes flag i at index i, so the batch forks hold n + fresh flags.
    group("fp-insert-n" + n, fpb, "insert(Batch)?", OURS, n, 17 * n + 2 * filter + block, true);
    group(
        "fp-query-n" + n,
        fpb,
        "(positive|negative)Query(Batch)?",
        OURS,
        n,
        17 * (n + fresh) + 2 * filter + block,
        false);
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
  private void group(
      String name,
      String benchmarkClass,
      String methods,
      String[] contenders,
      long n,
      long heapNeed,
      boolean singleShot)
      throws RunnerException {
    ChainedOptionsBuilder o =
        forks
            .options(name, heapNeed)
            .include(Pattern.quote(benchmarkClass) + "\\.(" + methods + ")$")
            .param("contender", contenders)
            .param("n", Long.toString(n));
    if (singleShot) {
      boolean big = n >= BIG;
      o.warmupIterations(big ? plan.bigInsertWarmups() : plan.insertWarmups())
          .measurementIterations(big ? plan.bigInsertRuns() : plan.insertRuns())
          .operationsPerInvocation(Math.toIntExact(n));
    } else {
      TimeValue t = TimeValue.seconds(plan.querySeconds());
      o.warmupIterations(plan.queryWarmups())
          .warmupTime(t)
          .measurementIterations(plan.queryRuns())
          .measurementTime(t);
    }
    table.add(forks.run(name, o));
  }

  private void snapshotGroup() throws RunnerException, IOException {
    long capacity = plan.snapshotCapacity();
    Path file = outDir.resolve("snapshot-" + capacity + ".snap").toAbsolutePath();
    long filterBytes = capacity * 15 / 8; // classic layout at 0.1 %: 14.4 bits/key
    try {
      ChainedOptionsBuilder o =
          forks
              .options("snapshot", 2 * filterBytes + 256 * MIB)
              .include(Pattern.quote(SnapshotLoadBenchmark.class.getName()) + "\\.(map|read)$")
              .param("file", file.toString())
              .param("capacity", Long.toString(capacity))
              .warmupIterations(1)
              .measurementIterations(plan.snapshotRuns());
      table.add(forks.run("snapshot", o));
      if (Files.exists(file)) {
        table.snapshotFile(capacity, Files.size(file));
      }
    } finally {
      Files.deleteIfExists(file); // ~857 MiB: never leave it behind
    }
  }

  private String header(String command, String loadBefore, String loadAfter, Duration took) {
    StringBuilder sb = new StringBuilder();
    sb.append("## idem-bench filters\n\n")
        .append("- command: `bin/idem-bench ")
        .append(command)
        .append("`\n")
        .append("- machine: ")
        .append(MachineInfo.summary())
        .append('\n')
        .append("- ")
        .append(machine.thpLine())
        .append('\n')
        .append("- JVM flags per group (forks=1, all with a fixed pre-touched heap):\n");
    for (String f : forks.flagsSeen()) {
      sb.append("  - ").append(f).append('\n');
    }
    sb.append("- load average before / after: ")
        .append(loadBefore)
        .append(" / ")
        .append(loadAfter)
        .append('\n')
        .append("- wall time: ")
        .append(took.toMinutes())
        .append(" min\n\n");
    return sb.toString();
  }
}
