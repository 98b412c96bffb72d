package dev.idem.bench;

import dev.idem.engine.job.DedupJobSpec;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * {@code idem-bench e2e}: issue #4's end-to-end benchmark. Generates the inputs into a scratch
 * directory, runs Part A (resume after kills at 35 % and 70 %) and Part B (throughput: whole lines,
 * or JSONL keyed by a field, against mawk, GNU sort and DuckDB; issue #18) with every contender a
 * child process, and writes {@code report.md}. Part C ({@code --only c}, issue #19) runs whole
 * lines beyond memory: idem's dedup and sort-dedup, DuckDB and GNU sort, all held to one memory
 * budget.
 *
 * <p>JVM memory: every child JVM gets a fixed heap ({@code -Xms} = {@code -Xmx}, so the heap is
 * never resized mid-run) but no {@code -XX:+AlwaysPreTouch}: pre-touching would make every RSS
 * equal to the heap and add the touch time to every cold start, the two things measured here.
 */
final class E2eRun {

  /** Sizes and heaps of one run. */
  record Plan(
      long records,
      long lines,
      String baselineHeap,
      String hashSetHeap,
      String idemHeap,
      String idemMemoryHeap,
      String idemLinesHeap,
      String idemLinesMemoryHeap,
      boolean partA,
      boolean partB,
      String rowFilter) {

    static Plan full(long records) {
      return new Plan(records, records, "1g", "3g", "1g", "2g", "512m", "1g", true, true, "");
    }

    static Plan quick() {
      return new Plan(
          400_000, 400_000, "256m", "256m", "256m", "256m", "256m", "256m", true, true, "");
    }
  }

  /**
   * Part B's variants: whole lines and/or JSONL keyed by {@code id}, how duplicates are spread, and
   * whether DuckDB also runs once streaming its result through JDBC.
   */
  record PartB(boolean lines, boolean keyed, E2eData.Dist dist, boolean duckdbJdbc) {}

  /**
   * Part C (issue #19, target 1): whole lines whose exact set is larger than a memory budget
   * ({@code --budget}, e.g. 256m), every contender held to it.
   */
  record PartC(
      long lines,
      String budget,
      E2eData.Dist dist,
      int reps,
      String rowFilter,
      List<String> duckdbMemory) {

    /** The budget in MiB, rounded up (as bin/idem reads --memory). */
    long budgetMiB() {
      return mib(budget);
    }
  }

  /** Part C's default size: 60 M lines, 40 M distinct (issue #19). */
  static final long PART_C_LINES = 60_000_000;

  /** Part C's stop for a contender that runs this long (the RocksDB exact tier). */
  static final long PART_C_TIMEOUT_SECONDS = 600;

  static final String USAGE =
      "idem-bench e2e [--records N] [--lines N] [--quick]"
          + " [--only a|b|c|a:ROW|c:ROW] [--variant lines|keyed|both]"
          + " [--dist default|far|dup90|dup33] [--duckdb-jdbc] [--budget SIZE] [--reps N]"
          + " [--duckdb-memory LIMIT,...]"
          + " [--idem-jar JAR] [--work DIR] [--out DIR]"
          + "\n         Part B: --variant lines (default): whole lines; keyed: JSONL records"
          + " keyed by id;\n         --dist: how duplicates are spread (Parts B and C;"
          + " B's default 30 % mixed, far: 30 % far\n         apart, dup90: 90 %, dup33: 33 %"
          + " duplicates); --duckdb-jdbc:"
          + " one more DuckDB row that streams through JDBC"
          + "\n         Part C (--only c; issue #19, not in the default run): whole lines beyond"
          + " memory, every\n         contender held to --budget (default 256m); --lines N"
          + " (default 60000000; --quick 2000000),\n         --dist (default dup33: 1/3"
          + " repeats, distinct ≈ 2/3 of the lines), --reps N (runs of each row, in turns;"
          + " medians;\n         a row that failed, and the RocksDB row (600 s limit), run"
          + " once), --duckdb-memory 1GiB,...\n         (more DuckDB rows at these memory_limit"
          + " values, beyond the budget, for scale); c:ROW: the rows whose name contains ROW"
          + "\n         a:ROW: the Part A rows whose name contains ROW; a:ROW1|ROW2: any of them";

  /** {@code e2e [options]}: {@code args[0]} is "e2e". */
  static void main(String[] args) throws Exception {
    boolean quick = false;
    Long records = null;
    Long lines = null;
    String only = null;
    String variant = "lines";
    E2eData.Dist dist = null;
    String budget = "256m";
    int reps = 1;
    List<String> duckdbMemory = List.of();
    boolean duckdbJdbc = false;
    Path idemJar = Path.of("idem-cli/target/idem.jar");
    Path out = Path.of("bench-results");
    Path work = null;
    try {
      for (int i = 1; i < args.length; i++) {
        switch (args[i]) {
          case "--quick" -> quick = true;
          case "--records" -> records = Long.parseLong(args[++i].replace("_", ""));
          case "--lines" -> lines = Long.parseLong(args[++i].replace("_", ""));
          case "--only" -> only = args[++i];
          case "--variant" -> variant = args[++i];
          case "--dist" -> dist = E2eData.Dist.byName(args[++i]);
          case "--budget" -> budget = args[++i];
          case "--reps" -> reps = Integer.parseInt(args[++i]);
          case "--duckdb-memory" -> duckdbMemory = List.of(args[++i].split(","));
          case "--duckdb-jdbc" -> duckdbJdbc = true;
          case "--help", "-h" -> {
            System.out.println("usage: " + USAGE);
            return;
          }
          case "--idem-jar" -> idemJar = Path.of(args[++i]);
          case "--work" -> work = Path.of(args[++i]);
          case "--out" -> out = Path.of(args[++i]);
          default -> throw new IllegalArgumentException("unknown option " + args[i]);
        }
      }
      if (!List.of("lines", "keyed", "both").contains(variant)) {
        throw new IllegalArgumentException("unknown --variant " + variant);
      }
      if (only != null && !only.matches("a|b|c|[ac]:.*")) {
        throw new IllegalArgumentException("unknown --only " + only);
      }
      if (mib(budget) <= 0) {
        throw new IllegalArgumentException("--budget: not a size: " + budget);
      }
    } catch (RuntimeException e) {
      System.err.println("e2e: " + e.getMessage() + "\nusage: " + USAGE);
      System.exit(2);
    }
    Plan plan = quick ? Plan.quick() : Plan.full(20_000_000);
    long r = records != null ? records : plan.records();
    long l = lines != null ? lines : records != null ? records : plan.lines();
    // --only a, b, or a:TEXT (Part A rows whose name contains TEXT)
    plan =
        new Plan(
            r,
            l,
            plan.baselineHeap(),
            plan.hashSetHeap(),
            plan.idemHeap(),
            plan.idemMemoryHeap(),
            plan.idemLinesHeap(),
            plan.idemLinesMemoryHeap(),
            only == null || only.startsWith("a"),
            only == null || only.equals("b"),
            only != null && only.startsWith("a:") ? only.substring(2) : "");
    PartB partB =
        new PartB(
            !variant.equals("keyed"),
            !variant.equals("lines"),
            dist != null ? dist : E2eData.Dist.DEFAULT,
            duckdbJdbc);
    PartC partC =
        only != null && (only.equals("c") || only.startsWith("c:"))
            ? new PartC(
                lines != null ? lines : quick ? 2_000_000 : PART_C_LINES,
                budget,
                dist != null ? dist : E2eData.Dist.DUP33,
                reps,
                only.startsWith("c:") ? only.substring(2) : "",
                duckdbMemory)
            : null;
    if (!Files.isRegularFile(idemJar)) {
      System.err.println("e2e: no " + idemJar + "; build first (./mvnw -q install -DskipTests)");
      System.exit(2);
    }
    String stamp = LocalDateTime.now().format(DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss"));
    Path dir = Files.createDirectories(out.resolve("e2e-" + stamp));
    if (work == null) {
      work = Files.createTempDirectory("idem-e2e-");
    }
    new E2eRun(plan, partB, partC, dir, work, idemJar).run(String.join(" ", args));
  }

  private final Plan plan;
  private final PartB partB;
  private final PartC partC;
  private final Path outDir;
  private final Path work;
  private final Path idemJar;
  private final String benchClassPath;
  private final String java;

  /** The DuckDB probe's report lines, once it has run (before DuckDB's first Part B row). */
  private List<String> probe;

  E2eRun(Plan plan, PartB partB, PartC partC, Path outDir, Path work, Path idemJarSource)
      throws IOException, InterruptedException {
    this.plan = plan;
    this.partB = partB;
    this.partC = partC;
    this.outDir = outDir;
    this.work = Files.createDirectories(work);
    // a private copy, so that a rebuild meanwhile cannot swap the CLI under a run
    this.idemJar = work.resolve("idem.jar");
    Files.copy(idemJarSource, idemJar, StandardCopyOption.REPLACE_EXISTING);
    // the baselines run from the same (private) jar as this harness
    this.benchClassPath = System.getProperty("java.class.path");
    this.java = ProcessHandle.current().info().command().orElse("java");
  }

  /** The java command line that runs idem's CLI from the private jar, as bin/idem does. */
  private List<String> idemCommand(String heap) {
    return new ArrayList<>(
        List.of(
            java,
            "-Xms" + heap,
            "-Xmx" + heap,
            "-Xlog:disable",
            "-Xlog:all=warning:stderr",
            "-jar",
            idemJar.toString()));
  }

  void run(String command) throws Exception {
    long t0 = System.nanoTime();
    String started = LocalDateTime.now().withNano(0).toString();
    String loadBefore = MachineInfo.loadAverage();
    List<String> report = new ArrayList<>();
    report.add("# idem-bench " + command);
    report.add("");
    report.add("- Machine: " + MachineInfo.summary());
    report.add("- Started " + started + ", load average before " + loadBefore);
    if (plan.partA()) {
      report.addAll(partA());
    }
    if (plan.partB() && partB.lines()) {
      report.addAll(partB(false));
    }
    if (plan.partB() && partB.keyed()) {
      report.addAll(partB(true));
    }
    if (partC != null) {
      report.addAll(partC());
    }
    report.add("");
    report.add(
        String.format(
            Locale.ROOT,
            "- Wall time %.1f min; load average after %s",
            (System.nanoTime() - t0) / 6e10,
            MachineInfo.loadAverage()));
    Files.write(outDir.resolve("report.md"), report);
    deleteTree(work);
    report.forEach(System.out::println);
  }

  private List<String> partA() throws Exception {
    Path input = work.resolve("records.jsonl");
    ForkRunner.log("Part A: generating " + plan.records() + " JSONL records");
    E2eData.Facts f = E2eData.generate(E2eData.Shape.JSONL, plan.records(), input, 0.35, 0.70);
    ForkRunner.log(
        String.format(
            Locale.ROOT,
            "  %,d records, %,d distinct, %,d bytes",
            f.records(),
            f.distinct(),
            f.inputBytes()));
    ResumeBenchmark bench = new ResumeBenchmark(f, input, work.resolve("a"), outDir);
    List<ResumeBenchmark.Contender> contenders =
        List.of(
            baseline(
                "rescan output → FingerprintSet (\"scan all\")", "rescan", plan.baselineHeap()),
            baseline("rescan output → HashSet<String>", "hashset", plan.hashSetHeap()),
            baseline("RocksDB alone (no filter)", "rocksdb", plan.baselineHeap()),
            idem("idem two-tier (default: --exact-store auto)", plan.idemHeap(), List.of(), input),
            idem(
                "idem two-tier --exact-store memory",
                plan.idemMemoryHeap(),
                List.of("--exact-store", "memory"),
                input),
            // the default's 64 MiB block cache is far below 14 M keys' lookups (docs/BENCHMARKS.md)
            idem(
                "idem two-tier --exact-store rocksdb --rocksdb-cache 1g",
                plan.idemHeap(),
                List.of("--exact-store", "rocksdb", "--rocksdb-cache", "1g"),
                input));
    List<ResumeBenchmark.Row> rows = new ArrayList<>();
    for (ResumeBenchmark.Contender c : contenders) {
      // a:ROW1|ROW2: the rows whose name contains any of them
      if (Stream.of(plan.rowFilter().split("\\|", -1)).noneMatch(c.name()::contains)) {
        continue;
      }
      ForkRunner.log("Part A: " + c.name());
      rows.add(bench.run(c));
    }
    List<String> out = new ArrayList<>();
    out.add("");
    out.add(
        String.format(
            Locale.ROOT,
            "## Part A: resume after kills at 35 %% and 70 %% "
                + "(%,d JSONL records, %,d distinct, %.0f MiB)",
            f.records(),
            f.distinct(),
            f.inputBytes() / 1048576.0));
    out.add("");
    out.addAll(ResumeBenchmark.table(rows));
    out.add("");
    for (ResumeBenchmark.Row r : rows) {
      var s = r.stats();
      out.add(
          String.format(
              Locale.ROOT,
              "- %s: own timers of the 70 %% restart: restore %s ms, "
                  + "first record %s ms, elapsed %s ms%s%s",
              r.contender().name(),
              s.get("restore_millis"),
              s.get("first_record_millis"),
              s.get("elapsed_millis"),
              s.containsKey("exact_store")
                  ? "; exact store "
                      + s.get("exact_store")
                      + ", filter "
                      + s.get("filter")
                      + ", journal replayed "
                      + s.get("journal_replayed")
                  : "",
              s.containsKey("rebuilt")
                  ? "; records re-read from the output " + s.get("rebuilt")
                  : ""));
    }
    deleteTree(work.resolve("a"));
    Files.deleteIfExists(input);
    return out;
  }

  private ResumeBenchmark.Contender baseline(String name, String strategy, String heap) {
    return new ResumeBenchmark.Contender(
        name,
        heap,
        new ResumeBenchmark.Launcher() {
          @Override
          public List<String> command(Path out, Path state, Path stats, long haltAt) {
            return List.of(
                java,
                "-Xms" + heap,
                "-Xmx" + heap,
                "-cp",
                benchClassPath,
                BaselineDedup.class.getName(),
                strategy,
                work.resolve("records.jsonl").toString(),
                out.toString(),
                state.toString(),
                Long.toString(haltAt),
                stats.toString());
          }

          @Override
          public boolean killedFromOutside() {
            return false;
          }
        });
  }

  private ResumeBenchmark.Contender idem(String name, String heap, List<String> extra, Path input) {
    return new ResumeBenchmark.Contender(
        name,
        heap,
        new ResumeBenchmark.Launcher() {
          @Override
          public List<String> command(Path out, Path state, Path stats, long haltAt) {
            List<String> cmd = idemCommand(heap);
            cmd.addAll(
                List.of(
                    "dedup",
                    "-q",
                    "--key",
                    "id",
                    "--state",
                    state.toString(),
                    "--stats-json",
                    stats.toString(),
                    "-o",
                    out.toString()));
            cmd.addAll(extra);
            cmd.add(input.toString());
            return cmd;
          }

          @Override
          public boolean killedFromOutside() {
            return true;
          }
        });
  }

  /** Part B on whole lines, or ({@code keyed}) on JSONL records keyed by {@code id}. */
  private List<String> partB(boolean keyed) throws Exception {
    E2eData.Shape shape = keyed ? E2eData.Shape.JSONL : E2eData.Shape.URL_LINES;
    String what = keyed ? "JSONL records" : "lines";
    Path input = work.resolve(keyed ? "records-b.jsonl" : "lines.txt");
    ForkRunner.log(
        "Part B: generating " + plan.lines() + " " + what + ", --dist " + partB.dist().id);
    E2eData.Facts f = E2eData.generate(shape, partB.dist(), plan.lines(), input);
    ForkRunner.log(
        String.format(
            Locale.ROOT,
            "  %,d %s, %,d distinct, %,d bytes",
            f.records(),
            what,
            f.distinct(),
            f.inputBytes()));
    // JSONL lines differ beyond the key: the check needs each key's first record to compare bytes
    int[] firstRecord =
        keyed ? E2eData.firstRecords(partB.dist(), plan.lines(), f.distinct()) : null;
    Path sortTmp = Files.createDirectories(work.resolve("sort-tmp"));
    List<ThroughputBenchmark.Contender> contenders =
        keyed ? keyedContenders(sortTmp) : lineContenders(sortTmp);
    List<String> out = new ArrayList<>();
    out.add("");
    out.add(
        String.format(
            Locale.ROOT,
            keyed
                ? "## Part B, keyed: JSONL records deduplicated by `id` (%,d records, %,d distinct,"
                    + " %.0f MiB; --dist %s)"
                : "## Part B: whole-line throughput (%,d lines, %,d distinct, %.0f MiB; --dist %s)",
            f.records(),
            f.distinct(),
            f.inputBytes() / 1048576.0,
            partB.dist().id));
    out.add("");
    out.add("Duplicates: " + partB.dist().description + ".");
    if (probe == null) {
      ForkRunner.log("Part B: DuckDB byte-exactness probe");
      probe = DuckDbProbe.run(duckdb("none", null, "copy"), duckdb("none", "id", "copy"), work);
      probe.forEach(ForkRunner::log);
    }
    ThroughputBenchmark bench = new ThroughputBenchmark(shape, firstRecord, f, input, work, outDir);
    List<ThroughputBenchmark.Row> rows = new ArrayList<>();
    for (ThroughputBenchmark.Contender c : contenders) {
      ForkRunner.log("Part B: " + c.name());
      rows.add(bench.run(c));
    }
    out.add("");
    out.addAll(ThroughputBenchmark.table(rows, f.records()));
    out.add("");
    out.add(
        "× DuckDB's speed: relative to the DuckDB row with all "
            + cores()
            + " cores and no memory limit (the reference); × sort's speed: relative to the"
            + " `sort -u` row. Cores used: (user + system CPU time) / wall time of that process,"
            + " from GNU time; wall time from spawn to exit, JVM start included.");
    out.add("");
    for (String line : probe) {
      out.add("- " + line);
    }
    for (ThroughputBenchmark.Row r : rows) {
      Map<String, String> s = r.stats();
      if (s.containsKey("failure")) {
        out.add("- " + r.contender().name() + ": failed: " + s.get("failure"));
      } else if (s.containsKey("duckdb_version")) {
        out.add(
            String.format(
                Locale.ROOT,
                "- %s: DuckDB %s, threads %s, memory_limit %s, via %s; driver load and connect %s"
                    + " ms, query %s ms; temporary directory peak %s MiB",
                r.contender().name(),
                s.get("duckdb_version"),
                s.get("threads"),
                s.get("memory_limit"),
                s.get("via"),
                s.get("connect_millis"),
                s.get("query_millis"),
                ResumeBenchmark.parse(s.get("temp_peak_bytes")) / 1048576));
      } else if (s.containsKey("exact_store")) {
        out.add(
            String.format(
                Locale.ROOT,
                "- %s: exact store %s; filter %s; restore %s ms; " + "checkpoints %s",
                r.contender().name(),
                s.get("exact_store"),
                s.get("filter"),
                s.get("restore_millis"),
                s.get("checkpoints")));
      }
    }
    Files.deleteIfExists(input);
    return out;
  }

  private List<ThroughputBenchmark.Contender> lineContenders(Path sortTmp) {
    List<String> whole = List.of("--whole-line");
    List<ThroughputBenchmark.Contender> c = new ArrayList<>();
    c.add(
        new ThroughputBenchmark.Contender(
            "`mawk '!seen[$0]++'`",
            "mawk 1.3.4; order-preserving",
            (in, out, st, s) -> List.of("mawk", "!seen[$0]++", in.toString()),
            true));
    c.add(sort("`LC_ALL=C sort -u -S 64M`", "not order-preserving, not resumable", sortTmp, "64M"));
    addDuckDb(c, "`GROUP BY line`", null);
    addIdem(c, "--whole-line", whole);
    return c;
  }

  /**
   * Keyed by {@code id}. mawk and sort find the key as text, not as JSON: exact for these inputs,
   * where every record is flat, starts with {@code {"id":"<16 hex>"}} and has no other {@code
   * "id":"} in it, not for JSONL in general.
   */
  private List<ThroughputBenchmark.Contender> keyedContenders(Path sortTmp) {
    List<String> key = List.of("--key", "id");
    List<ThroughputBenchmark.Contender> c = new ArrayList<>();
    String awk = "!seen[match($0, /\"id\":\"[^\"]*\"/) ? substr($0, RSTART, RLENGTH) : $0]++";
    c.add(
        new ThroughputBenchmark.Contender(
            "`mawk '" + awk.replace("|", "\\|") + "'`",
            "mawk 1.3.4; order-preserving; the key is the first `\"id\":\"…\"` text, not"
                + " parsed JSON (exact for this data only)",
            (in, out, st, s) -> List.of("mawk", awk, in.toString()),
            true));
    c.add(
        sort(
            "`LC_ALL=C sort -u -t , -k 1,1 -S 64M`",
            "field 1 is `{\"id\":\"<16 hex>\"`: exact for this data only; keeps each key's first"
                + " record (`-u` is stable); not order-preserving",
            sortTmp,
            "64M",
            "-t",
            ",",
            "-k",
            "1,1"));
    addDuckDb(c, "`arg_min(line, rn)` … `GROUP BY json_extract_string(line, '$.id')`", "id");
    addIdem(c, "--key id", key);
    return c;
  }

  /**
   * idem's rows, run by {@code bin/idem} as a user runs it (its heap policy, no {@code -Xmx}, the
   * repository's built jar): resumable on every core and on one thread, and without a state.
   */
  private void addIdem(List<ThroughputBenchmark.Contender> c, String keyText, List<String> key) {
    String defaults = "`bin/idem` defaults (no -Xmx), exact tier auto";
    c.add(
        idem(
            "`bin/idem dedup " + keyText + " --state`",
            "exact, resumable; --threads "
                + DedupJobSpec.defaultThreads(cores())
                + " (the default here); "
                + defaults,
            null,
            key,
            true,
            List.of()));
    c.add(
        idem(
            "`bin/idem dedup " + keyText + " --state --threads " + cores() + "`",
            "exact, resumable; a parsing and a judging thread per core; " + defaults,
            null,
            key,
            true,
            List.of("--threads", String.valueOf(cores()))));
    c.add(
        idem(
            "`bin/idem dedup " + keyText + "` (no --state)",
            "exact, **not resumable**; " + defaults,
            null,
            key,
            false,
            List.of()));
  }

  /** GNU sort, unique, with its own temporary directory and a buffer of {@code buffer} (-S). */
  private ThroughputBenchmark.Contender sort(
      String name, String notes, Path sortTmp, String buffer, String... keyOptions) {
    return new ThroughputBenchmark.Contender(
        name,
        "GNU sort, " + cores() + " threads; " + notes,
        (in, out, st, s) -> {
          List<String> cmd = new ArrayList<>(List.of("sort", "-u"));
          cmd.addAll(List.of(keyOptions));
          cmd.addAll(
              List.of("-S", buffer, "-T", sortTmp.toString(), "-o", out.toString(), in.toString()));
          return cmd;
        },
        false,
        ThroughputBenchmark.Role.SORT_REFERENCE);
  }

  /** DuckDB with no memory limit (the reference), with 256 MB, and, if asked, through JDBC. */
  private void addDuckDb(List<ThroughputBenchmark.Contender> c, String grouping, String key) {
    String query = "DuckDB, " + grouping + " … `ORDER BY first`";
    c.add(
        new ThroughputBenchmark.Contender(
            query,
            "JDBC, own JVM; `SET threads = "
                + cores()
                + "`, no memory limit; `COPY … TO` (no quoting); **the × DuckDB reference**",
            duckdb("none", key, "copy"),
            false,
            ThroughputBenchmark.Role.DUCKDB_REFERENCE));
    c.add(
        new ThroughputBenchmark.Contender(
            query + ", `memory_limit = '256MB'`",
            "`SET threads = " + cores() + "`; spills to a temp_directory in the work dir",
            duckdb("256MB", key, "copy"),
            false));
    if (partB.duckdbJdbc()) {
      c.add(
          new ThroughputBenchmark.Contender(
              query + ", streamed through JDBC",
              "no memory limit; rows read with `ResultSet.getString` and written by the child",
              duckdb("none", key, "jdbc"),
              false));
    }
  }

  /** The child JVM that runs {@link DuckDbDedup} from the private jar, with a 256 MiB heap. */
  private ThroughputBenchmark.Command duckdb(String memoryLimit, String key, String via) {
    return duckdb("256m", cores(), true, memoryLimit, key, via);
  }

  /**
   * As {@link #duckdb(String, String, String)} with a heap of {@code heap} (-Xms = -Xmx) for the
   * JVM that drives DuckDB (DuckDB's own memory is native, outside it), {@code threads} and {@code
   * preserve_insertion_order}.
   */
  private ThroughputBenchmark.Command duckdb(
      String heap,
      int threads,
      boolean preserveInsertionOrder,
      String memoryLimit,
      String key,
      String via) {
    return (in, out, scratch, stats) -> {
      List<String> cmd =
          new ArrayList<>(
              List.of(
                  java,
                  "-Xms" + heap,
                  "-Xmx" + heap,
                  "-cp",
                  benchClassPath,
                  DuckDbDedup.class.getName(),
                  "--threads",
                  Integer.toString(threads),
                  "--preserve-insertion-order",
                  Boolean.toString(preserveInsertionOrder),
                  "--memory-limit",
                  memoryLimit,
                  "--temp",
                  scratch.resolve("duckdb-temp").toString(),
                  "--via",
                  via,
                  "--stats",
                  stats.toString()));
      if (key != null) {
        cmd.addAll(List.of("--key", key));
      }
      cmd.addAll(List.of(in.toString(), out.toString()));
      return cmd;
    };
  }

  private static int cores() {
    return Runtime.getRuntime().availableProcessors();
  }

  private ThroughputBenchmark.Contender idem(
      String name,
      String notes,
      String heap,
      List<String> mode,
      boolean state,
      List<String> extra) {
    return new ThroughputBenchmark.Contender(
        name,
        notes,
        (in, out, st, s) -> {
          List<String> cmd =
              heap == null
                  ? new ArrayList<>(List.of(Path.of("bin/idem").toAbsolutePath().toString()))
                  : idemCommand(heap);
          cmd.addAll(List.of("dedup", "-q"));
          cmd.addAll(mode);
          cmd.addAll(List.of("--stats-json", s.toString(), "-o", out.toString()));
          if (state) {
            cmd.addAll(List.of("--state", st.toString()));
          }
          cmd.addAll(extra);
          cmd.add(in.toString());
          return cmd;
        },
        false);
  }

  /**
   * Part C (issue #19, target 1): whole lines whose exact set is larger than the budget B. idem's
   * dedup with {@code --memory B --state} (auto, then each method named), idem's sort-dedup with a
   * heap of about B, DuckDB with {@code memory_limit} = B and GNU sort with {@code -S B}.
   */
  private List<String> partC() throws Exception {
    E2eData.Shape shape = E2eData.Shape.URL_LINES;
    Path input = work.resolve("lines-c.txt");
    ForkRunner.log("Part C: generating " + partC.lines() + " lines, --dist " + partC.dist().id);
    E2eData.Facts f = E2eData.generate(shape, partC.dist(), partC.lines(), input);
    ForkRunner.log(
        String.format(
            Locale.ROOT,
            "  %,d lines, %,d distinct, %,d bytes",
            f.records(),
            f.distinct(),
            f.inputBytes()));
    long b = partC.budgetMiB();
    String memory = b + "m";
    long sortMemory = Math.max(1, (b - 32) / 2);
    Path sortTmp = Files.createDirectories(work.resolve("sort-tmp"));
    String idemHeap = "`bin/idem` starts the JVM with -Xmx" + Math.max(b, 36) + "m";
    List<ThroughputBenchmark.Contender> c = new ArrayList<>();
    c.add(
        idemDedupC(
            "`bin/idem dedup --whole-line --memory " + memory + " --state`",
            "exact, first occurrence, input order, resumable; --exact-store auto (the default;"
                + " its choice below); "
                + idemHeap,
            memory,
            List.of(),
            0));
    c.add(
        idemDedupC(
            "`bin/idem dedup --whole-line --memory "
                + memory
                + " --state --exact-store partitioned`",
            "the partitioned method: keys to partition files in the state, each judged in"
                + " memory, then a second read writes the records; "
                + idemHeap,
            memory,
            List.of("--exact-store", "partitioned"),
            0));
    c.add(
        new ThroughputBenchmark.Contender(
            "`bin/idem sort-dedup --whole-line --memory " + sortMemory + "m`",
            "external sort-merge; first occurrence, input order (`--order input`, the default),"
                + " not resumable; `bin/idem` starts the JVM with -Xmx"
                + (2 * sortMemory + 32)
                + "m (2 × "
                + sortMemory
                + "m + 32m)",
            (in, out, st, s) ->
                List.of(
                    Path.of("bin/idem").toAbsolutePath().toString(),
                    "sort-dedup",
                    "--whole-line",
                    "--memory",
                    sortMemory + "m",
                    "--tmp",
                    sortTmp.toString(),
                    "--stats-json",
                    s.toString(),
                    "-o",
                    out.toString(),
                    in.toString()),
            false));
    // DuckDB as Part B runs it, then the two remedies its out-of-memory error suggests: one
    // thread (still the reference, being the same query and settings otherwise), and
    // preserve_insertion_order = false (not the reference: its output order is what is checked)
    String duckdbQuery =
        "DuckDB, `GROUP BY line` … `ORDER BY first`, `memory_limit = '" + b + "MiB'`";
    String duckdbNotes =
        "JDBC, own JVM (-Xmx64m: DuckDB's memory is native); spills to a temp_directory in the"
            + " work dir; `COPY … TO`";
    c.add(
        new ThroughputBenchmark.Contender(
            duckdbQuery + ", `threads = " + cores() + "`",
            duckdbNotes + "; **the × DuckDB reference** if it succeeds",
            duckdb("64m", cores(), true, b + "MiB", null, "copy"),
            false,
            ThroughputBenchmark.Role.DUCKDB_REFERENCE));
    c.add(
        new ThroughputBenchmark.Contender(
            duckdbQuery + ", `threads = 1`",
            duckdbNotes + "; the × DuckDB reference if the row above failed",
            duckdb("64m", 1, true, b + "MiB", null, "copy"),
            false,
            ThroughputBenchmark.Role.DUCKDB_REFERENCE));
    c.add(
        new ThroughputBenchmark.Contender(
            duckdbQuery + ", `threads = " + cores() + "`, `preserve_insertion_order = false`",
            duckdbNotes + "; the order of the output is left to `ORDER BY` alone",
            duckdb("64m", cores(), false, b + "MiB", null, "copy"),
            false));
    for (String limit : partC.duckdbMemory()) {
      c.add(
          new ThroughputBenchmark.Contender(
              "DuckDB, `GROUP BY line` … `ORDER BY first`, `memory_limit = '"
                  + limit
                  + "'`, `threads = "
                  + cores()
                  + "`",
              duckdbNotes + "; beyond the budget (--duckdb-memory): for scale, not a target",
              duckdb("64m", cores(), true, limit, null, "copy"),
              false));
    }
    c.add(
        sort(
            "`LC_ALL=C sort -u -S " + b + "M`",
            "not order-preserving, not resumable; **the × sort reference**",
            sortTmp,
            b + "M"));
    c.add(
        idemDedupC(
            "`bin/idem dedup --whole-line --memory " + memory + " --state --exact-store rocksdb`",
            "keys in RocksDB on disk behind a filter; block cache auto (a quarter of the heap, at"
                + " least 64m, outside the heap); "
                + idemHeap
                + "; stopped after "
                + PART_C_TIMEOUT_SECONDS
                + " s if not done",
            memory,
            List.of("--exact-store", "rocksdb"),
            PART_C_TIMEOUT_SECONDS));
    c.removeIf(x -> !x.name().contains(partC.rowFilter()));
    ThroughputBenchmark bench = new ThroughputBenchmark(shape, null, f, input, work, outDir);
    // --reps: every row once, then again, in turns; a failed or stopped row is not repeated, nor
    // the one with a time limit (RocksDB's, minutes a run)
    List<List<ThroughputBenchmark.Row>> runs = new ArrayList<>();
    c.forEach(x -> runs.add(new ArrayList<>()));
    for (int rep = 1; rep <= partC.reps(); rep++) {
      for (int i = 0; i < c.size(); i++) {
        List<ThroughputBenchmark.Row> done = runs.get(i);
        if (!done.isEmpty() && (!succeeded(done.get(0)) || c.get(i).timeoutSeconds() > 0)) {
          continue;
        }
        ForkRunner.log(
            String.format(
                Locale.ROOT,
                "Part C, run %d of %d: %s (load %s)",
                rep,
                partC.reps(),
                c.get(i).name(),
                MachineInfo.loadAverage()));
        done.add(bench.run(c.get(i)));
      }
    }
    List<ThroughputBenchmark.Row> rows = runs.stream().map(E2eRun::median).toList();
    List<String> out = new ArrayList<>();
    out.add("");
    out.add(
        String.format(
            Locale.ROOT,
            "## Part C: beyond memory (issue #19): %,d lines, %,d distinct, %.0f MiB; budget %s",
            f.records(),
            f.distinct(),
            f.inputBytes() / 1048576.0,
            memory));
    out.add("");
    out.add("Duplicates: " + partC.dist().description + ".");
    out.add("");
    out.addAll(ThroughputBenchmark.table(rows, f.records()));
    out.add("");
    out.add(
        (partC.reps() > 1
                ? "Wall, peak RSS and cores used: medians of "
                    + partC.reps()
                    + " runs of each row, taken in turns (each run's below). "
                : "One run of each row. ")
            + "× DuckDB's speed: relative to the first DuckDB row that succeeded with"
            + " `preserve_insertion_order` on (memory_limit = the budget); × sort's speed:"
            + " relative to the `sort -u -S` row. Cores used: (user + system CPU time) / wall time,"
            + " from GNU time; wall time from spawn to exit, JVM start included.");
    out.add("");
    long limitKiB = (b + 64) * 1024;
    for (ThroughputBenchmark.Row r : rows) {
      Map<String, String> s = r.stats();
      List<String> parts = new ArrayList<>();
      if (s.containsKey("stopped")) {
        parts.add("stopped (SIGKILL) after " + s.get("stopped") + " s");
      }
      if (s.containsKey("failure")) {
        parts.add("failed: " + s.get("failure"));
      }
      if (s.containsKey("summary_partitioned")) {
        // the state directory's path, shortened to what the user chose: --state STATE
        String note = s.get("summary_partitioned").replaceAll("\\S*/state/", "STATE/");
        parts.add("stderr: `" + note + "`");
      }
      if (s.containsKey("summary_exact_tier")) {
        parts.add("stderr: `" + s.get("summary_exact_tier") + "`");
      }
      if (s.containsKey("exact_store")) {
        parts.add(
            "exact store "
                + s.get("exact_store")
                + ", own time "
                + s.get("elapsed_millis")
                + " ms");
      }
      if (s.containsKey("merge_passes")) {
        parts.add(
            String.format(
                Locale.ROOT,
                "%s runs, %s merge passes, temp written %,d MiB, temp peak %,d MiB, own time %s ms",
                s.get("runs"),
                s.get("merge_passes"),
                ResumeBenchmark.parse(s.get("temp_bytes_written")) / 1048576,
                ResumeBenchmark.parse(s.get("temp_peak_bytes")) / 1048576,
                s.get("elapsed_millis")));
      }
      if (s.containsKey("duckdb_version")) {
        parts.add(
            String.format(
                Locale.ROOT,
                "DuckDB %s, threads %s, memory_limit %s; connect %s ms, query %s ms; temporary"
                    + " directory peak %,d MiB",
                s.get("duckdb_version"),
                s.get("threads"),
                s.get("memory_limit"),
                s.get("connect_millis"),
                s.get("query_millis"),
                ResumeBenchmark.parse(s.get("temp_peak_bytes")) / 1048576));
      }
      if (s.containsKey("runs_wall")) {
        parts.add("runs: wall " + s.get("runs_wall") + ", peak RSS " + s.get("runs_rss"));
      }
      long rss = r.outcome().peakRssKiB();
      if (rss >= 0) {
        // issue #19's bound: the budget + 64 MiB + the filter (idem's, from --stats-json; an
        // exact set in memory that answers alone reports its own bits there: not a filter)
        long filterKiB =
            String.valueOf(s.get("exact_store")).startsWith("memory")
                ? 0
                : ResumeBenchmark.parse(s.get("filter_bits")) / 8 / 1024;
        long bound = limitKiB + filterKiB;
        parts.add(
            String.format(
                Locale.ROOT,
                "peak RSS %,d MiB, %s budget + 64 MiB%s (%,d MiB) by %,d MiB",
                rss / 1024,
                rss <= bound ? "under" : "over",
                filterKiB > 0
                    ? String.format(Locale.ROOT, " + the filter's %,d MiB", filterKiB / 1024)
                    : "",
                bound / 1024,
                Math.abs(rss - bound) / 1024));
      }
      out.add("- " + r.contender().name() + ": " + String.join("; ", parts));
    }
    Files.deleteIfExists(input);
    return out;
  }

  private static boolean succeeded(ThroughputBenchmark.Row r) {
    return r.outcome().exitCode() == 0 && !r.outcome().killed();
  }

  /**
   * One row for several runs of a contender: median wall, first-output time, peak RSS and CPU time;
   * the first failed run, or the first inexact or out-of-order check, if any; the stats of the run
   * nearest the median wall, with every run's wall and peak RSS added ({@code runs_wall}, {@code
   * runs_rss}).
   */
  static ThroughputBenchmark.Row median(List<ThroughputBenchmark.Row> runs) {
    if (runs.size() == 1) {
      return runs.get(0);
    }
    for (ThroughputBenchmark.Row r : runs) {
      if (!succeeded(r)) {
        return r;
      }
    }
    List<ChildRun.Outcome> o = runs.stream().map(ThroughputBenchmark.Row::outcome).toList();
    double wall = median(o.stream().mapToDouble(ChildRun.Outcome::wallSeconds).toArray());
    ChildRun.Outcome m =
        new ChildRun.Outcome(
            0,
            wall,
            median(o.stream().mapToDouble(ChildRun.Outcome::firstNewOutputSeconds).toArray()),
            Math.round(median(o.stream().mapToDouble(ChildRun.Outcome::peakRssKiB).toArray())),
            median(o.stream().mapToDouble(ChildRun.Outcome::cpuSeconds).toArray()),
            false);
    OutputCheck check =
        runs.stream()
            .map(ThroughputBenchmark.Row::check)
            .filter(x -> !x.exact() || !x.inOrder())
            .findFirst()
            .orElse(runs.get(0).check());
    ThroughputBenchmark.Row nearest =
        runs.stream()
            .min(Comparator.comparingDouble(r -> Math.abs(r.outcome().wallSeconds() - wall)))
            .orElseThrow();
    Map<String, String> stats = new HashMap<>(nearest.stats());
    stats.put(
        "runs_wall",
        o.stream()
                .map(x -> String.format(Locale.ROOT, "%.1f", x.wallSeconds()))
                .collect(Collectors.joining(" / "))
            + " s");
    stats.put(
        "runs_rss",
        o.stream()
                .map(x -> String.format(Locale.ROOT, "%,d", x.peakRssKiB() / 1024))
                .collect(Collectors.joining(" / "))
            + " MiB");
    return new ThroughputBenchmark.Row(runs.get(0).contender(), m, check, stats);
  }

  private static double median(double[] v) {
    double[] s = v.clone();
    Arrays.sort(s);
    int n = s.length;
    return n % 2 == 1 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
  }

  /**
   * {@code bin/idem dedup --whole-line --memory M --state}, as a user runs it, with its summary.
   */
  private ThroughputBenchmark.Contender idemDedupC(
      String name, String notes, String memory, List<String> extra, long timeoutSeconds) {
    return new ThroughputBenchmark.Contender(
        name,
        notes,
        (in, out, st, s) -> {
          List<String> cmd =
              new ArrayList<>(
                  List.of(
                      Path.of("bin/idem").toAbsolutePath().toString(),
                      "dedup",
                      "--whole-line",
                      "--memory",
                      memory,
                      "--stats-json",
                      s.toString(),
                      "-o",
                      out.toString(),
                      "--state",
                      st.toString()));
          cmd.addAll(extra);
          cmd.add(in.toString());
          return cmd;
        },
        false,
        ThroughputBenchmark.Role.OTHER,
        timeoutSeconds);
  }

  private static final Pattern SIZE = Pattern.compile("([0-9]+)([kmgt]?)(i?b)?");

  /** A size as bin/idem reads --memory (4096, 64k, 16m, 2g; b or ib allowed) in MiB, rounded up. */
  static long mib(String size) {
    Matcher m = SIZE.matcher(size.toLowerCase(Locale.ROOT));
    if (!m.matches()) {
      return -1;
    }
    int shift = "-kmgt".indexOf(m.group(2).isEmpty() ? "-" : m.group(2)) * 10;
    long bytes = Long.parseLong(m.group(1)) << shift;
    return (bytes + (1 << 20) - 1) >> 20;
  }

  static void deleteTree(Path dir) throws IOException {
    if (!Files.exists(dir)) {
      return;
    }
    try (Stream<Path> s = Files.walk(dir)) {
      for (Path p : s.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(p);
      }
    }
  }
}
