package dev.idem.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.apache.parquet.ParquetReadOptions;
import org.apache.parquet.conf.PlainParquetConfiguration;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.io.LocalInputFile;

/**
 * {@code idem-bench parquet} (Part D, issue #20): a Parquet lake deduplicated by {@code bin/idem
 * dedup --key id --state}, killed with SIGKILL at 70 % of its input, and restarted three ways from
 * the same killed state (a rescan of the Parquet written so far into a {@code HashSet<String>}, the
 * same into DuckDB, idem's resume); then idem's uninterrupted throughput against DuckDB's
 * order-preserving dedup of the same files. Every contender is a child process ({@link ChildRun}:
 * wall time, peak RSS and CPU time from GNU time), each timed run under {@link BenchLock}.
 * Generation and checks: {@link ParquetLakeData}; the rescan and DuckDB children: {@link
 * ParquetChild}; the tables: {@link ParquetReport}.
 */
public final class ParquetRun {

  static final String USAGE = "idem-bench parquet [--records N] [--files N] [--runs N] [--out DIR]";

  /** idem's JVM: a fixed heap, as Part A's ({@code -Xms} = {@code -Xmx}, no pre-touch). */
  static final String IDEM_HEAP = "2g";

  static final String RESCAN_HEAP = "3g";
  static final String DUCKDB_HEAP = "256m";
  static final double KILL_AT = 0.70;

  private final long records;
  private final int files;
  private final int runs;
  private final Path out;
  private final Path dir;
  private final Path work;
  private final String java = ProcessHandle.current().info().command().orElse("java");
  private final String classPath = System.getProperty("java.class.path");
  private final ParquetReport report = new ParquetReport();

  private ParquetRun(long records, int files, int runs, Path out, Path dir) {
    this.records = records;
    this.files = files;
    this.runs = runs;
    this.out = out;
    this.dir = dir;
    this.work = dir.resolve("work");
  }

  public static void main(String[] args) throws Exception {
    long records = 20_000_000;
    int files = 200;
    int runs = 3;
    Path out = Path.of("bench-results");
    try {
      for (int i = 1; i < args.length; i++) {
        switch (args[i]) {
          case "--records" -> records = Long.parseLong(args[++i].replace("_", ""));
          case "--files" -> files = Integer.parseInt(args[++i].replace("_", ""));
          case "--runs" -> runs = Integer.parseInt(args[++i]);
          case "--out" -> out = Path.of(args[++i]);
          default -> throw new IllegalArgumentException("unknown option " + args[i]);
        }
      }
      if (records < 10_000 || files < 2 || records / files < 100 || runs < 1) {
        throw new IllegalArgumentException("need --records ≥ 10000, 2 ≤ --files, --runs ≥ 1");
      }
    } catch (RuntimeException e) {
      System.err.println(e.getMessage() + "\nusage: " + USAGE);
      System.exit(2);
    }
    String stamp = LocalDateTime.now().format(DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss"));
    Path dir = Files.createDirectories(out.resolve("parquet-" + stamp));
    new ParquetRun(records, files, runs, out, dir).run(String.join(" ", args));
  }

  private void run(String command) throws Exception {
    report.started(command, MachineInfo.summary(), MachineInfo.loadAverage());
    ParquetLakeData.Facts facts =
        ParquetLakeData.ensure(
            out.resolve("parquet-lake-" + records + "-" + files), records, files);
    Path lake = ParquetLakeData.lake(out.resolve("parquet-lake-" + records + "-" + files));
    report.lake(facts);
    Path output = work.resolve("out");
    Path state = work.resolve("state");
    Path killedOut = work.resolve("killed-out");
    Path killedState = work.resolve("killed-state");
    Files.createDirectories(work);

    // 1. a job from scratch, killed once the part of input file ⌈70 %⌉ is published
    int killPart = (int) Math.round(files * KILL_AT) - 1;
    Path trigger = output.resolve(String.format(Locale.ROOT, "part-%05d.parquet", killPart));
    ChildRun.Outcome killed;
    try (BenchLock lock = BenchLock.take()) {
      killed =
          new ChildRun(idem(lake, output, state, work.resolve("killed.json")), trigger, log("kill"))
              .env(idemEnv())
              .run(0, 1);
    }
    if (!killed.killed()) {
      throw new IllegalStateException("the job ended before the kill point: see kill.log");
    }
    copyTree(output, killedOut);
    copyTree(state, killedState);
    List<Path> written = ParquetChild.parquetFiles(killedOut);
    long rowsWritten = rowsIn(written);
    report.killed(killed, killPart, written.size(), rowsWritten, dirSize(killedState));
    System.err.printf(
        Locale.ROOT,
        "parquet: killed after %.1f s: %d parts, %,d rows written%n",
        killed.wallSeconds(),
        written.size(),
        rowsWritten);

    // 2. three restarts from the same killed state, in turns
    for (int r = 0; r < runs; r++) {
      report.restart("rescan", child("rescan", RESCAN_HEAP, "rescan", killedOut.toString()));
      report.restart(
          "duckdb", child("duckdb-set", DUCKDB_HEAP, "duckdb-set", killedOut.toString()));
      deleteTree(output);
      deleteTree(state);
      copyTree(killedOut, output);
      copyTree(killedState, state);
      Path stats = work.resolve("resume.json");
      Files.deleteIfExists(stats);
      NewPartWatcher watcher;
      ChildRun.Outcome o;
      try (BenchLock lock = BenchLock.take()) {
        watcher = new NewPartWatcher(output, written.size());
        watcher.start();
        o =
            new ChildRun(idem(lake, output, state, stats), output.resolve("none"), log("resume"))
                .env(idemEnv())
                .run(0, 0);
      }
      watcher.interrupt();
      OutputCheck check = ParquetLakeData.check(ParquetChild.parquetFiles(output), facts);
      report.resume(o, watcher.seconds(), jsonLong(stats, "restore_millis"), check);
      System.err.printf(Locale.ROOT, "parquet: restart run %d done: %s%n", r + 1, check);
    }

    // 3. throughput: idem from scratch vs DuckDB, in turns
    for (int r = 0; r < runs; r++) {
      deleteTree(output);
      deleteTree(state);
      Path stats = work.resolve("full.json");
      ChildRun.Outcome idem;
      try (BenchLock lock = BenchLock.take()) {
        idem =
            new ChildRun(idem(lake, output, state, stats), output.resolve("none"), log("full"))
                .env(idemEnv())
                .run(0, 0);
      }
      report.throughput(
          "idem",
          idem,
          r == 0 ? ParquetLakeData.check(ParquetChild.parquetFiles(output), facts) : null);
      deleteTree(output);
      deleteTree(state);
      Path duck = work.resolve("duckdb.parquet");
      Files.deleteIfExists(duck);
      Path duckStats = work.resolve("duckdb-dedup.stats");
      List<String> cmd = harness(DUCKDB_HEAP);
      cmd.addAll(
          List.of(
              "duckdb-dedup",
              lake.toAbsolutePath() + "/*.parquet",
              duck.toString(),
              duckStats.toString(),
              work.resolve("duckdb-temp").toString()));
      ChildRun.Outcome d;
      try (BenchLock lock = BenchLock.take()) {
        d = new ChildRun(cmd, duck, log("duckdb-dedup")).run(0, 0);
      }
      report.duckdbStats(readStats(duckStats));
      report.throughput("duckdb", d, r == 0 ? ParquetLakeData.check(List.of(duck), facts) : null);
      Files.deleteIfExists(duck);
      System.err.printf(Locale.ROOT, "parquet: throughput run %d done%n", r + 1);
    }
    deleteTree(work);
    report.finished(MachineInfo.loadAverage());
    Path md = dir.resolve("report.md");
    Files.writeString(md, report.render(facts, runs));
    System.err.println("parquet: report in " + md);
    System.out.print(report.render(facts, runs));
  }

  /** {@code bin/idem dedup} as a user runs it, the checkpoint at every input file's end. */
  private List<String> idem(Path lake, Path output, Path state, Path stats) {
    return new ArrayList<>(
        List.of(
            E2eCommands.binIdem(),
            "dedup",
            "-q",
            "--key",
            "id",
            "--state",
            state.toString(),
            "--stats-json",
            stats.toString(),
            "--checkpoint-every",
            Long.toString(records / files),
            "-o",
            output + "/",
            lake + "/"));
  }

  private static Map<String, String> idemEnv() {
    return Map.of("IDEM_JAVA_OPTS", "-Xms" + IDEM_HEAP + " -Xmx" + IDEM_HEAP);
  }

  private List<String> harness(String heap) {
    return new ArrayList<>(
        List.of(
            java, "-Xms" + heap, "-Xmx" + heap, "-cp", classPath, ParquetChild.class.getName()));
  }

  /** Runs a {@link ParquetChild} mode over {@code arg}, locked; its outcome and stats. */
  private ParquetReport.Restart child(String mode, String heap, String name, String arg)
      throws IOException, InterruptedException {
    Path stats = work.resolve(name + ".stats");
    Files.deleteIfExists(stats);
    List<String> cmd = harness(heap);
    cmd.addAll(List.of(mode, arg, stats.toString()));
    ChildRun.Outcome o;
    try (BenchLock lock = BenchLock.take()) {
      o = new ChildRun(cmd, work.resolve("none"), log(name)).run(0, 0);
    }
    return new ParquetReport.Restart(o, readStats(stats));
  }

  private Path log(String name) {
    return dir.resolve(name + ".log");
  }

  static Map<String, String> readStats(Path file) throws IOException {
    Map<String, String> m = new HashMap<>();
    if (Files.exists(file)) {
      for (String line : Files.readAllLines(file)) {
        int eq = line.indexOf('=');
        if (eq > 0) {
          m.put(line.substring(0, eq), line.substring(eq + 1));
        }
      }
    }
    return m;
  }

  /** A number field of idem's {@code --stats-json}, or -1. */
  static long jsonLong(Path file, String field) throws IOException {
    if (!Files.exists(file)) {
      return -1;
    }
    Matcher m =
        Pattern.compile("\"" + Pattern.quote(field) + "\"\\s*:\\s*(\\d+)")
            .matcher(Files.readString(file));
    return m.find() ? Long.parseLong(m.group(1)) : -1;
  }

  /** The rows of {@code files}, from their footers. */
  static long rowsIn(List<Path> files) throws IOException {
    long rows = 0;
    ParquetReadOptions o = ParquetReadOptions.builder(new PlainParquetConfiguration()).build();
    for (Path f : files) {
      try (ParquetFileReader r = ParquetFileReader.open(new LocalInputFile(f), o)) {
        rows += r.getRecordCount();
      }
    }
    return rows;
  }

  static void copyTree(Path from, Path to) throws IOException {
    deleteTree(to);
    try (Stream<Path> s = Files.walk(from)) {
      for (Path p : (Iterable<Path>) s::iterator) {
        Path target = to.resolve(from.relativize(p).toString());
        if (Files.isDirectory(p)) {
          Files.createDirectories(target);
        } else {
          Files.copy(p, target);
        }
      }
    }
  }

  static void deleteTree(Path p) throws IOException {
    if (!Files.exists(p)) {
      return;
    }
    try (Stream<Path> s = Files.walk(p)) {
      for (Path f : s.sorted(Comparator.reverseOrder()).toList()) {
        Files.delete(f);
      }
    }
  }

  static long dirSize(Path p) throws IOException {
    try (Stream<Path> s = Files.walk(p)) {
      return s.filter(Files::isRegularFile)
          .mapToLong(
              f -> {
                try {
                  return Files.size(f);
                } catch (IOException e) {
                  return 0;
                }
              })
          .sum();
    }
  }

  /**
   * Watches for the resumed job's first new part: an in-progress part file ({@code
   * .part-N.parquet.inprogress}, N = the parts the killed job published or one less, as its last
   * checkpoint says) modified after the watch began. A part is opened at the first kept row of the
   * first row group judged, so this is "restored, and the first new row is going out".
   */
  private static final class NewPartWatcher extends Thread {
    private final Path[] candidates;
    private final Instant since = Instant.now();
    private final long t0 = System.nanoTime();
    private volatile long seenNanos = -1;

    NewPartWatcher(Path output, int parts) {
      super("new-part-watcher");
      setDaemon(true);
      this.candidates = new Path[2];
      for (int i = 0; i < 2; i++) {
        candidates[i] =
            output.resolve(String.format(Locale.ROOT, ".part-%05d.parquet.inprogress", parts - i));
      }
    }

    @Override
    public void run() {
      while (!isInterrupted() && seenNanos < 0) {
        for (Path p : candidates) {
          try {
            FileTime t = Files.getLastModifiedTime(p);
            if (t.toInstant().isAfter(since)) {
              seenNanos = System.nanoTime() - t0;
            }
          } catch (IOException e) {
            // not there (yet)
          }
        }
        try {
          Thread.sleep(1);
        } catch (InterruptedException e) {
          return;
        }
      }
    }

    double seconds() {
      return seenNanos < 0 ? -1 : seenNanos / 1e9;
    }
  }
}
