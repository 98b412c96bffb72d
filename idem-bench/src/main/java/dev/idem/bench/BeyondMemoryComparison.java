package dev.idem.bench;

import static dev.idem.bench.E2eCommands.cores;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * Part C of {@code idem-bench e2e} (issue #19, target 1; {@code --only c}): whole lines whose exact
 * set is larger than a memory budget, every contender held to it. {@link ThroughputBenchmark} runs
 * and checks each row as in Part B; this class chooses the rows, repeats them in turns ({@code
 * --reps}), takes medians and writes the report section, with each row's peak RSS against the
 * budget.
 *
 * @param options the size, the budget, the rows to run ({@code --only c:ROW}) and the repeats
 * @param work the scratch directory
 * @param outDir where the report and each contender's logs go
 */
record BeyondMemoryComparison(E2eRun.PartC options, Path work, Path outDir, E2eCommands commands) {

  /** The stop for a contender that runs this long (the RocksDB exact tier). */
  static final long TIMEOUT_SECONDS = 600;

  /**
   * Generates the input, runs the rows ({@code --reps} times each, in turns) and returns the
   * report's Part C section.
   */
  List<String> run() throws Exception {
    E2eData.Shape shape = E2eData.Shape.URL_LINES;
    Path input = work.resolve("lines-c.txt");
    ForkRunner.log("Part C: generating " + options.lines() + " lines, --dist " + options.dist().id);
    E2eData.Facts f = E2eData.generate(shape, options.dist(), options.lines(), input);
    ForkRunner.log(
        String.format(
            Locale.ROOT,
            "  %,d lines, %,d distinct, %,d bytes",
            f.records(),
            f.distinct(),
            f.inputBytes()));
    long b = options.budgetMiB();
    String memory = b + "m";
    Path sortTmp = Files.createDirectories(work.resolve("sort-tmp"));
    List<ThroughputBenchmark.Contender> c = contenders(b, sortTmp);
    c.removeIf(x -> !x.name().contains(options.rowFilter()));
    ThroughputBenchmark bench = new ThroughputBenchmark(shape, null, f, input, work, outDir);
    // --reps: every row once, then again, in turns; a failed or stopped row is not repeated, nor
    // the one with a time limit (RocksDB's, minutes a run)
    List<List<ThroughputBenchmark.Row>> runs = new ArrayList<>();
    c.forEach(x -> runs.add(new ArrayList<>()));
    for (int rep = 1; rep <= options.reps(); rep++) {
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
                options.reps(),
                c.get(i).name(),
                MachineInfo.loadAverage()));
        done.add(bench.run(c.get(i)));
      }
    }
    List<ThroughputBenchmark.Row> rows = runs.stream().map(BeyondMemoryComparison::median).toList();
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
    out.add("Duplicates: " + options.dist().description + ".");
    out.add("");
    out.addAll(ThroughputBenchmark.table(rows, f.records()));
    out.add("");
    out.add(
        (options.reps() > 1
                ? "Wall, peak RSS and cores used: medians of "
                    + options.reps()
                    + " runs of each row, taken in turns (each run's below). "
                : "One run of each row. ")
            + "× DuckDB's speed: relative to the first DuckDB row that succeeded with"
            + " `preserve_insertion_order` on (memory_limit = the budget); × sort's speed:"
            + " relative to the `sort -u -S` row. Cores used: (user + system CPU time) / wall time,"
            + " from GNU time; wall time from spawn to exit, JVM start included.");
    out.add("");
    for (ThroughputBenchmark.Row r : rows) {
      out.add("- " + r.contender().name() + ": " + notes(r, b));
    }
    Files.deleteIfExists(input);
    return out;
  }

  /**
   * The rows at a budget of {@code b} MiB: idem's dedup with {@code --memory B --state} (auto, then
   * each method named), idem's sort-dedup with a heap of about B, DuckDB with {@code memory_limit}
   * = B and GNU sort with {@code -S B}.
   */
  private List<ThroughputBenchmark.Contender> contenders(long b, Path sortTmp) {
    String memory = b + "m";
    long sortMemory = Math.max(1, (b - 32) / 2);
    String idemHeap = "`bin/idem` starts the JVM with -Xmx" + Math.max(b, 36) + "m";
    List<ThroughputBenchmark.Contender> c = new ArrayList<>();
    c.add(
        idemDedup(
            "`bin/idem dedup --whole-line --memory " + memory + " --state`",
            "exact, first occurrence, input order, resumable; --exact-store auto (the default;"
                + " its choice below); "
                + idemHeap,
            memory,
            List.of(),
            0));
    c.add(
        idemDedup(
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
                    E2eCommands.binIdem(),
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
            commands.duckdb("64m", cores(), true, b + "MiB", null, "copy"),
            false,
            ThroughputBenchmark.Role.DUCKDB_REFERENCE));
    c.add(
        new ThroughputBenchmark.Contender(
            duckdbQuery + ", `threads = 1`",
            duckdbNotes + "; the × DuckDB reference if the row above failed",
            commands.duckdb("64m", 1, true, b + "MiB", null, "copy"),
            false,
            ThroughputBenchmark.Role.DUCKDB_REFERENCE));
    c.add(
        new ThroughputBenchmark.Contender(
            duckdbQuery + ", `threads = " + cores() + "`, `preserve_insertion_order = false`",
            duckdbNotes + "; the order of the output is left to `ORDER BY` alone",
            commands.duckdb("64m", cores(), false, b + "MiB", null, "copy"),
            false));
    for (String limit : options.duckdbMemory()) {
      c.add(
          new ThroughputBenchmark.Contender(
              "DuckDB, `GROUP BY line` … `ORDER BY first`, `memory_limit = '"
                  + limit
                  + "'`, `threads = "
                  + cores()
                  + "`",
              duckdbNotes + "; beyond the budget (--duckdb-memory): for scale, not a target",
              commands.duckdb("64m", cores(), true, limit, null, "copy"),
              false));
    }
    c.add(
        E2eCommands.sort(
            "`LC_ALL=C sort -u -S " + b + "M`",
            "not order-preserving, not resumable; **the × sort reference**",
            sortTmp,
            b + "M"));
    c.add(
        idemDedup(
            "`bin/idem dedup --whole-line --memory " + memory + " --state --exact-store rocksdb`",
            "keys in RocksDB on disk behind a filter; block cache auto (a quarter of the heap, at"
                + " least 64m, outside the heap); "
                + idemHeap
                + "; stopped after "
                + TIMEOUT_SECONDS
                + " s if not done",
            memory,
            List.of("--exact-store", "rocksdb"),
            TIMEOUT_SECONDS));
    return c;
  }

  /**
   * A row's line under the table: why it stopped or failed, what idem or DuckDB said of their run,
   * each run's wall and peak RSS, and the peak RSS against the budget of {@code budgetMiB}.
   */
  private static String notes(ThroughputBenchmark.Row r, long budgetMiB) {
    long limitKiB = (budgetMiB + 64) * 1024;
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
          "exact store " + s.get("exact_store") + ", own time " + s.get("elapsed_millis") + " ms");
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
      // issue #19's bound: the budget + 64 MiB + the filter (idem's, from --stats-json)
      long filterKiB = ResumeBenchmark.parse(s.get("filter_bits")) / 8 / 1024;
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
    return String.join("; ", parts);
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
  private static ThroughputBenchmark.Row median(List<ThroughputBenchmark.Row> runs) {
    if (runs.size() == 1) {
      return runs.get(0);
    }
    for (ThroughputBenchmark.Row r : runs) {
      if (!succeeded(r)) {
        return r;
      }
    }
    List<ChildRun.Outcome> o = runs.stream().map(ThroughputBenchmark.Row::outcome).toList();
    double wall =
        ResultTable.median(o.stream().mapToDouble(ChildRun.Outcome::wallSeconds).toArray());
    ChildRun.Outcome m =
        new ChildRun.Outcome(
            0,
            wall,
            ResultTable.median(
                o.stream().mapToDouble(ChildRun.Outcome::firstNewOutputSeconds).toArray()),
            Math.round(
                ResultTable.median(o.stream().mapToDouble(ChildRun.Outcome::peakRssKiB).toArray())),
            ResultTable.median(o.stream().mapToDouble(ChildRun.Outcome::cpuSeconds).toArray()),
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

  /**
   * {@code bin/idem dedup --whole-line --memory M --state}, as a user runs it, with its summary.
   */
  private ThroughputBenchmark.Contender idemDedup(
      String name, String notes, String memory, List<String> extra, long timeoutSeconds) {
    return new ThroughputBenchmark.Contender(
        name,
        notes,
        (in, out, st, s) -> {
          List<String> cmd =
              new ArrayList<>(
                  List.of(
                      E2eCommands.binIdem(),
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
}
