package dev.idem.bench;

import dev.idem.engine.job.DedupJobSpec;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Stream;

/**
 * {@code idem-bench e2e}: issue #4's end-to-end benchmark. Generates the inputs into a scratch
 * directory, runs Part A (resume after kills at 35 % and 70 %) and Part B (throughput: whole lines,
 * or JSONL keyed by a field, against mawk, GNU sort and DuckDB; issue #18) with every contender a
 * child process, and writes {@code report.md}.
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

  static final String USAGE =
      "idem-bench e2e [--records N] [--lines N] [--quick]"
          + " [--only a|b|a:ROW] [--variant lines|keyed|both] [--dist default|far|dup90]"
          + " [--duckdb-jdbc] [--idem-jar JAR] [--work DIR] [--out DIR]"
          + "\n         Part B: --variant lines (default): whole lines; keyed: JSONL records"
          + " keyed by id;\n         --dist: how duplicates are spread (Part B only; default"
          + " 30 % mixed, far: 30 % far apart,\n         dup90: 90 % duplicates); --duckdb-jdbc:"
          + " one more DuckDB row that streams through JDBC";

  /** {@code e2e [options]}: {@code args[0]} is "e2e". */
  static void main(String[] args) throws Exception {
    boolean quick = false;
    Long records = null;
    Long lines = null;
    String only = null;
    String variant = "lines";
    E2eData.Dist dist = E2eData.Dist.DEFAULT;
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
    PartB partB = new PartB(!variant.equals("keyed"), !variant.equals("lines"), dist, duckdbJdbc);
    if (!Files.isRegularFile(idemJar)) {
      System.err.println("e2e: no " + idemJar + "; build first (./mvnw -q install -DskipTests)");
      System.exit(2);
    }
    String stamp = LocalDateTime.now().format(DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss"));
    Path dir = Files.createDirectories(out.resolve("e2e-" + stamp));
    if (work == null) {
      work = Files.createTempDirectory("idem-e2e-");
    }
    new E2eRun(plan, partB, dir, work, idemJar).run(String.join(" ", args));
  }

  private final Plan plan;
  private final PartB partB;
  private final Path outDir;
  private final Path work;
  private final Path idemJar;
  private final String benchClassPath;
  private final String java;

  /** The DuckDB probe's report lines, once it has run (before DuckDB's first Part B row). */
  private List<String> probe;

  E2eRun(Plan plan, PartB partB, Path outDir, Path work, Path idemJarSource)
      throws IOException, InterruptedException {
    this.plan = plan;
    this.partB = partB;
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
      if (!c.name().contains(plan.rowFilter())) {
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
    c.add(sort("`LC_ALL=C sort -u -S 64M`", "not order-preserving, not resumable", sortTmp));
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

  /** GNU sort, unique, with its own temporary directory and 64 MiB buffer. */
  private ThroughputBenchmark.Contender sort(
      String name, String notes, Path sortTmp, String... keyOptions) {
    return new ThroughputBenchmark.Contender(
        name,
        "GNU sort, " + cores() + " threads; " + notes,
        (in, out, st, s) -> {
          List<String> cmd = new ArrayList<>(List.of("sort", "-u"));
          cmd.addAll(List.of(keyOptions));
          cmd.addAll(
              List.of("-S", "64M", "-T", sortTmp.toString(), "-o", out.toString(), in.toString()));
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

  /** The child JVM that runs {@link DuckDbDedup} from the private jar. */
  private ThroughputBenchmark.Command duckdb(String memoryLimit, String key, String via) {
    return (in, out, scratch, stats) -> {
      List<String> cmd =
          new ArrayList<>(
              List.of(
                  java,
                  "-Xms256m",
                  "-Xmx256m",
                  "-cp",
                  benchClassPath,
                  DuckDbDedup.class.getName(),
                  "--threads",
                  Integer.toString(cores()),
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
