package dev.idem.bench;

import static dev.idem.bench.E2eCommands.cores;

import dev.idem.engine.job.DedupJobSpec;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Part B of {@code idem-bench e2e} (issue #18): throughput on one file, whole lines or JSONL keyed
 * by {@code id}, idem against mawk, GNU sort and DuckDB. {@link ThroughputBenchmark} runs and
 * checks each row; this class chooses the rows for each variant and writes the report section.
 */
final class ThroughputComparison {

  private final long lines;
  private final E2eRun.PartB options;
  private final Path work;
  private final Path outDir;
  private final E2eCommands commands;

  /**
   * The report lines of DuckDB's byte-exactness probe ({@link DuckDbProbe}), run before DuckDB's
   * first row; with {@code --variant both} the second variant reuses them.
   */
  private List<String> probe;

  /** {@code lines}: the size of the input, in lines or records. */
  ThroughputComparison(
      long lines, E2eRun.PartB options, Path work, Path outDir, E2eCommands commands) {
    this.lines = lines;
    this.options = options;
    this.work = work;
    this.outDir = outDir;
    this.commands = commands;
  }

  /** Part B on whole lines, or ({@code keyed}) on JSONL records keyed by {@code id}. */
  List<String> run(boolean keyed) throws Exception {
    E2eData.Shape shape = keyed ? E2eData.Shape.JSONL : E2eData.Shape.URL_LINES;
    String what = keyed ? "JSONL records" : "lines";
    Path input = work.resolve(keyed ? "records-b.jsonl" : "lines.txt");
    ForkRunner.log("Part B: generating " + lines + " " + what + ", --dist " + options.dist().id);
    E2eData.Facts f = E2eData.generate(shape, options.dist(), lines, input);
    ForkRunner.log(
        String.format(
            Locale.ROOT,
            "  %,d %s, %,d distinct, %,d bytes",
            f.records(),
            what,
            f.distinct(),
            f.inputBytes()));
    // JSONL lines differ beyond the key: the check needs each key's first record to compare bytes
    int[] firstRecord = keyed ? E2eData.firstRecords(options.dist(), lines, f.distinct()) : null;
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
            options.dist().id));
    out.add("");
    out.add("Duplicates: " + options.dist().description + ".");
    if (probe == null) {
      ForkRunner.log("Part B: DuckDB byte-exactness probe");
      probe =
          DuckDbProbe.run(
              commands.duckdb("none", null, "copy"), commands.duckdb("none", "id", "copy"), work);
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
    c.add(
        E2eCommands.sort(
            "`LC_ALL=C sort -u -S 64M`", "not order-preserving, not resumable", sortTmp, "64M"));
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
        E2eCommands.sort(
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
            key,
            true,
            List.of()));
    c.add(
        idem(
            "`bin/idem dedup " + keyText + " --state --threads " + cores() + "`",
            "exact, resumable; a parsing and a judging thread per core; " + defaults,
            key,
            true,
            List.of("--threads", String.valueOf(cores()))));
    c.add(
        idem(
            "`bin/idem dedup " + keyText + "` (no --state)",
            "exact, **not resumable**; " + defaults,
            key,
            false,
            List.of()));
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
            commands.duckdb("none", key, "copy"),
            false,
            ThroughputBenchmark.Role.DUCKDB_REFERENCE));
    c.add(
        new ThroughputBenchmark.Contender(
            query + ", `memory_limit = '256MB'`",
            "`SET threads = " + cores() + "`; spills to a temp_directory in the work dir",
            commands.duckdb("256MB", key, "copy"),
            false));
    if (options.duckdbJdbc()) {
      c.add(
          new ThroughputBenchmark.Contender(
              query + ", streamed through JDBC",
              "no memory limit; rows read with `ResultSet.getString` and written by the child",
              commands.duckdb("none", key, "jdbc"),
              false));
    }
  }

  private ThroughputBenchmark.Contender idem(
      String name, String notes, List<String> mode, boolean state, List<String> extra) {
    return new ThroughputBenchmark.Contender(
        name,
        notes,
        (in, out, st, s) -> {
          List<String> cmd = new ArrayList<>(List.of(E2eCommands.binIdem()));
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
}
