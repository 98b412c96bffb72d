package dev.idem.bench;

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
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * {@code idem-bench e2e}: issue #4's end-to-end benchmark. Generates the inputs into a scratch
 * directory, runs Part A (resume after kills at 35 % and 70 %; {@link ResumeComparison}) and Part B
 * (throughput: whole lines, or JSONL keyed by a field, against mawk, GNU sort and DuckDB; issue
 * #18; {@link ThroughputComparison}) with every contender a child process ({@link E2eCommands}),
 * and writes {@code report.md}. Part C ({@code --only c}, issue #19; {@link
 * BeyondMemoryComparison}) runs whole lines beyond memory: idem's dedup and sort-dedup, DuckDB and
 * GNU sort, all held to one memory budget. This class reads the options and puts the parts'
 * sections into one report.
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
  private final E2eCommands commands;

  E2eRun(Plan plan, PartB partB, PartC partC, Path outDir, Path work, Path idemJarSource)
      throws IOException {
    this.plan = plan;
    this.partB = partB;
    this.partC = partC;
    this.outDir = outDir;
    this.work = Files.createDirectories(work);
    // a private copy, so that a rebuild meanwhile cannot swap the CLI under a run
    Path idemJar = work.resolve("idem.jar");
    Files.copy(idemJarSource, idemJar, StandardCopyOption.REPLACE_EXISTING);
    this.commands = new E2eCommands(idemJar);
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
      report.addAll(new ResumeComparison(plan, work, outDir, commands).run());
    }
    // one for both variants: DuckDB's probe runs once
    ThroughputComparison throughput =
        new ThroughputComparison(plan.lines(), partB, work, outDir, commands);
    if (plan.partB() && partB.lines()) {
      report.addAll(throughput.run(false));
    }
    if (plan.partB() && partB.keyed()) {
      report.addAll(throughput.run(true));
    }
    if (partC != null) {
      report.addAll(new BeyondMemoryComparison(partC, work, outDir, commands).run());
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
