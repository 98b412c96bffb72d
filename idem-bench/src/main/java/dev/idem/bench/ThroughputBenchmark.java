package dev.idem.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Part B of the end-to-end benchmark: dedup of one file (whole lines, or JSONL keyed by a field) by
 * mawk, GNU sort, DuckDB and idem, one after another; wall time, records/s, speed relative to
 * DuckDB and to sort, cores used (CPU time over wall time), peak RSS, and the output checked
 * against the reference byte for byte.
 */
final class ThroughputBenchmark {

  /**
   * One contender: a command that reads {@code in} and writes {@code out} (or stdout). {@code
   * role}: whether its speed is the reference of a ratio column; {@code timeoutSeconds}: stopped
   * (SIGKILL) after this long, 0 for no limit.
   */
  record Contender(
      String name,
      String notes,
      Command command,
      boolean writesStdout,
      Role role,
      long timeoutSeconds) {

    Contender(String name, String notes, Command command, boolean writesStdout, Role role) {
      this(name, notes, command, writesStdout, role, 0);
    }

    Contender(String name, String notes, Command command, boolean writesStdout) {
      this(name, notes, command, writesStdout, Role.OTHER);
    }
  }

  /** Which ratio column a contender is the 1.00 of. */
  enum Role {
    OTHER,
    DUCKDB_REFERENCE,
    SORT_REFERENCE
  }

  /**
   * A contender's command line. {@code scratch}: a directory of its own, deleted after it (idem's
   * {@code --state}, DuckDB's temporary directory); {@code stats}: where it may write its stats.
   */
  interface Command {
    List<String> of(Path in, Path out, Path scratch, Path stats);
  }

  record Row(
      Contender contender,
      ChildRun.Outcome outcome,
      OutputCheck check,
      Map<String, String> stats) {}

  private final E2eData.Shape shape;
  private final int[] firstRecord;
  private final E2eData.Facts facts;
  private final Path input;
  private final Path work;
  private final Path logs;

  /**
   * @param firstRecord for JSONL, the record number of each key's first occurrence, so that every
   *     output line is checked byte for byte against it ({@link E2eData#firstRecords})
   */
  ThroughputBenchmark(
      E2eData.Shape shape,
      int[] firstRecord,
      E2eData.Facts facts,
      Path input,
      Path work,
      Path logs) {
    this.shape = shape;
    this.firstRecord = firstRecord;
    this.facts = facts;
    this.input = input;
    this.work = work;
    this.logs = logs;
  }

  Row run(Contender c) throws IOException, InterruptedException {
    Path dir =
        Files.createDirectories(work.resolve("b-" + c.name().replaceAll("[^A-Za-z0-9]+", "-")));
    Path out = dir.resolve("out.txt");
    Path stats = dir.resolve("stats.json");
    ChildRun child =
        new ChildRun(
                c.command().of(input, out, dir.resolve("state"), stats),
                out,
                dir.resolve("log.txt"))
            .env(Map.of("LC_ALL", "C"))
            .timeout(c.timeoutSeconds());
    if (c.writesStdout()) {
      child.stdoutTo(out);
    }
    ChildRun.Outcome o = child.run(0, 0);
    OutputCheck check = OutputCheck.of(shape, out, facts.distinct(), firstRecord);
    Map<String, String> s = ResumeBenchmark.readStats(stats);
    if (o.killed()) {
      s.put("stopped", String.format(Locale.ROOT, "%.0f", o.wallSeconds()));
    } else if (o.exitCode() != 0) {
      s.put("failure", firstLine(dir.resolve("log.txt")));
    }
    // idem's summary on stderr: where the exact tier was (auto's choice), and the job's notes
    for (String line : Files.readAllLines(dir.resolve("log.txt"))) {
      if (line.contains("; exact tier ")) {
        s.put("summary_exact_tier", line.strip());
      } else if (line.startsWith("idem dedup: partitioned method")) {
        s.put("summary_partitioned", line.substring("idem dedup: ".length()).strip());
      }
    }
    ForkRunner.log(String.format(Locale.ROOT, "  %s: %s %s", c.name(), o, check));
    String slug = dir.getFileName().toString();
    Files.copy(
        dir.resolve("log.txt"), logs.resolve(slug + ".log"), StandardCopyOption.REPLACE_EXISTING);
    // the outputs are as large as the input: free the disk before the next contender
    Files.deleteIfExists(out);
    E2eRun.deleteTree(dir.resolve("state"));
    return new Row(c, o, check, s);
  }

  /** The first non-blank line of a log, shortened: what a failed contender said. */
  private static String firstLine(Path log) throws IOException {
    String line =
        Files.readAllLines(log).stream().filter(l -> !l.isBlank()).findFirst().orElse("").strip();
    return line.length() > 200 ? line.substring(0, 200) + "…" : line;
  }

  /**
   * The markdown table: speeds relative to the {@link Role#DUCKDB_REFERENCE} and {@link
   * Role#SORT_REFERENCE} rows (a ratio above 1 is faster than the reference).
   */
  static List<String> table(List<Row> rows, long records) {
    double duckdb = referenceSeconds(rows, Role.DUCKDB_REFERENCE);
    double sort = referenceSeconds(rows, Role.SORT_REFERENCE);
    List<String> t = new ArrayList<>();
    t.add(
        "| command | notes | wall | records/s | × DuckDB's speed | × sort's speed | cores used |"
            + " peak RSS | exact (0 missed, 0 duplicated, bytes as in the input) | input order |");
    t.add("|---|---|---|---|---|---|---|---|---|---|");
    for (Row r : rows) {
      ChildRun.Outcome o = r.outcome();
      OutputCheck c = r.check();
      boolean ok = o.exitCode() == 0 && !o.killed();
      String exact =
          o.killed()
              ? String.format(Locale.ROOT, "stopped (%,d lines written)", c.lines())
              : o.exitCode() != 0
                  ? "failed (exit " + o.exitCode() + ")"
                  : c.exact()
                      ? "yes"
                      : String.format(
                          Locale.ROOT,
                          "no: %,d missed, %,d dup., %,d altered, %,d stray bytes",
                          c.missed(),
                          c.duplicated() + c.unknown(),
                          c.altered(),
                          c.strayBytes());
      String wall =
          o.killed()
              ? String.format(Locale.ROOT, "stopped after %.0f s", o.wallSeconds())
              : String.format(Locale.ROOT, "%s%.1f s", ok ? "" : "failed after ", o.wallSeconds());
      t.add(
          String.format(
              Locale.ROOT,
              "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |",
              r.contender().name(),
              r.contender().notes(),
              wall,
              ok ? String.format(Locale.ROOT, "%,.0f", records / o.wallSeconds()) : "–",
              ratio(duckdb, o),
              ratio(sort, o),
              o.cores() < 0 ? "–" : String.format(Locale.ROOT, "%.2f", o.cores()),
              ResumeBenchmark.mib(o.peakRssKiB()),
              exact,
              !ok ? "–" : c.inOrder() ? "yes" : "no"));
    }
    return t;
  }

  private static double referenceSeconds(List<Row> rows, Role role) {
    return rows.stream()
        .filter(
            r ->
                r.contender().role() == role
                    && r.outcome().exitCode() == 0
                    && !r.outcome().killed())
        .mapToDouble(r -> r.outcome().wallSeconds())
        .findFirst()
        .orElse(-1);
  }

  /** Speed over the reference's: the reference's wall time over this one's. */
  private static String ratio(double referenceSeconds, ChildRun.Outcome o) {
    return referenceSeconds <= 0 || o.exitCode() != 0 || o.killed()
        ? "–"
        : String.format(Locale.ROOT, "%.2f", referenceSeconds / o.wallSeconds());
  }
}
