package dev.idem.bench;

import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.ToDoubleFunction;

/** {@code idem-bench parquet}'s measurements and its markdown report (medians of the runs). */
final class ParquetReport {

  /** One rescan or DuckDB restart: the child's outcome and its stats lines. */
  record Restart(ChildRun.Outcome outcome, Map<String, String> stats) {}

  /** One idem resume: outcome, spawn → first new part (s), idem's restore_millis, the check. */
  record Resume(
      ChildRun.Outcome outcome, double readySeconds, long restoreMillis, OutputCheck check) {}

  private final List<String> header = new ArrayList<>();
  private final Map<String, List<Restart>> restarts = new LinkedHashMap<>();
  private final List<Resume> resumes = new ArrayList<>();
  private final Map<String, List<ChildRun.Outcome>> throughput = new LinkedHashMap<>();
  private final Map<String, OutputCheck> checks = new LinkedHashMap<>();
  private Map<String, String> duckdb = Map.of();
  private long rowsWritten;
  private int partsWritten;

  void started(String command, String machine, String load) {
    header.add("- Command: `bin/idem-bench " + command + "`");
    header.add("- Machine: " + machine);
    header.add("- Started " + Instant.now() + ", load average " + load);
  }

  void finished(String load) {
    header.add("- Finished " + Instant.now() + ", load average " + load);
  }

  void lake(ParquetLakeData.Facts f) {
    header.add(
        String.format(
            Locale.ROOT,
            "- Lake: %,d rows in %d zstd Parquet files (%,d bytes), %,d distinct ids",
            f.rows(),
            f.files(),
            f.bytes(),
            f.distinct()));
  }

  void killed(ChildRun.Outcome o, int part, int parts, long rows, long stateBytes) {
    partsWritten = parts;
    rowsWritten = rows;
    header.add(
        String.format(
            Locale.ROOT,
            "- Kill: SIGKILL %.2f s after spawn, when part-%05d.parquet appeared; %d parts"
                + " published, %,d rows written; state %,d bytes",
            o.wallSeconds(),
            part,
            parts,
            rows,
            stateBytes));
  }

  void restart(String name, Restart r) {
    restarts.computeIfAbsent(name, k -> new ArrayList<>()).add(r);
  }

  void resume(ChildRun.Outcome o, double ready, long restoreMillis, OutputCheck check) {
    resumes.add(new Resume(o, ready, restoreMillis, check));
  }

  void throughput(String name, ChildRun.Outcome o, OutputCheck check) {
    throughput.computeIfAbsent(name, k -> new ArrayList<>()).add(o);
    if (check != null) {
      checks.put(name, check);
    }
  }

  void duckdbStats(Map<String, String> stats) {
    duckdb = stats;
  }

  String render(ParquetLakeData.Facts facts, int runs) {
    StringBuilder sb = new StringBuilder("# idem-bench parquet (Part D, issue #20)\n\n");
    header.forEach(h -> sb.append(h).append('\n'));
    sb.append("- DuckDB: ")
        .append(duckdb.getOrDefault("duckdb_version", "?"))
        .append(", threads ")
        .append(duckdb.getOrDefault("threads", "?"))
        .append(", memory_limit ")
        .append(duckdb.getOrDefault("memory_limit", "?"))
        .append('\n');
    sb.append(String.format(Locale.ROOT, "- Medians of %d runs; the values in brackets%n%n", runs));

    sb.append("## Restart after the kill at 70 %\n\n");
    sb.append(
        "| restart | heap | cold start: spawn → ready | peak RSS | own time | set size"
            + " / rows written | missed | duplicated | in input order | whole restart |\n");
    sb.append("|---|---|---|---|---|---|---|---|---|---|\n");
    for (Map.Entry<String, List<Restart>> e : restarts.entrySet()) {
      List<Restart> rs = e.getValue();
      boolean rescan = e.getKey().equals("rescan");
      sb.append(
          String.format(
              Locale.ROOT,
              "| %s | %s | %s | %s | %s | %s / %,d | – | – | – | = cold start |%n",
              rescan
                  ? "(a) rescan: parquet-java footers + `id` → `HashSet<String>`"
                  : "(b) DuckDB: `read_parquet` → table + UNIQUE index",
              rescan ? ParquetRun.RESCAN_HEAP : ParquetRun.DUCKDB_HEAP + " (+ native)",
              seconds(rs, r -> r.outcome().wallSeconds()),
              mib(rs, r -> r.outcome().peakRssKiB()),
              seconds(
                  rs, r -> Double.parseDouble(r.stats().getOrDefault("own_millis", "-1")) / 1e3),
              rs.get(0).stats().getOrDefault("set_size", "?"),
              rowsWritten));
    }
    if (!resumes.isEmpty()) {
      OutputCheck worst = resumes.get(0).check();
      for (Resume r : resumes) {
        if (!r.check().exact() || !r.check().inOrder()) {
          worst = r.check();
        }
      }
      sb.append(
          String.format(
              Locale.ROOT,
              "| (c) idem resume: `bin/idem dedup` again | %s | %s | %s | restore %s |"
                  + " – | %,d | %,d | %s | %s |%n",
              ParquetRun.IDEM_HEAP,
              seconds(resumes, Resume::readySeconds),
              mib(resumes, r -> r.outcome().peakRssKiB()),
              seconds(resumes, r -> r.restoreMillis() / 1e3),
              worst.missed(),
              worst.duplicated(),
              worst.inOrder() && worst.unknown() == 0 && worst.altered() == 0
                  ? "yes"
                  : "no (altered " + worst.altered() + ", unknown " + worst.unknown() + ")",
              seconds(resumes, r -> r.outcome().wallSeconds())));
    }
    sb.append(
        String.format(
            Locale.ROOT,
            "%nThe killed job had published %d parts (%,d rows). Cold start: (a), (b) spawn →"
                + " exit (the set is built); (c) spawn → the resumed job's first new part file"
                + " is opened (its first kept row). own time: the child's own clock;"
                + " restore: idem's restore_millis.%n%n",
            partsWritten,
            rowsWritten));

    sb.append("## Throughput: the whole lake, uninterrupted\n\n");
    sb.append(
        "| contender | wall | rows/s | × DuckDB's speed | peak RSS | cores used | missed |"
            + " duplicated | in input order |\n");
    sb.append("|---|---|---|---|---|---|---|---|---|\n");
    double duck =
        median(throughput.getOrDefault("duckdb", List.of()), ChildRun.Outcome::wallSeconds);
    for (Map.Entry<String, List<ChildRun.Outcome>> e : throughput.entrySet()) {
      List<ChildRun.Outcome> os = e.getValue();
      double wall = median(os, ChildRun.Outcome::wallSeconds);
      OutputCheck c = checks.get(e.getKey());
      sb.append(
          String.format(
              Locale.ROOT,
              "| %s | %s | %,.0f | %.2f | %s | %.2f | %s | %s | %s |%n",
              e.getKey().equals("idem")
                  ? "`bin/idem dedup --key id --state` (" + ParquetRun.IDEM_HEAP + " heap)"
                  : "DuckDB `row_number() OVER (PARTITION BY id ORDER BY filename,"
                      + " file_row_number)`, `COPY … (FORMAT parquet, COMPRESSION zstd)`",
              seconds(os, ChildRun.Outcome::wallSeconds),
              facts.rows() / wall,
              duck / wall,
              mib(os, ChildRun.Outcome::peakRssKiB),
              median(os, ChildRun.Outcome::cores),
              c == null ? "?" : Long.toString(c.missed()),
              c == null ? "?" : Long.toString(c.duplicated()),
              c == null
                  ? "?"
                  : c.inOrder() && c.altered() == 0 && c.unknown() == 0 ? "yes" : "no"));
    }
    sb.append("\nOutputs checked on the first run of each contender (and every idem resume).\n");
    return sb.toString();
  }

  private static <T> double median(List<T> xs, ToDoubleFunction<T> f) {
    double[] v = xs.stream().mapToDouble(f).sorted().toArray();
    return v.length == 0 ? Double.NaN : v[v.length / 2];
  }

  private static <T> String seconds(List<T> xs, ToDoubleFunction<T> f) {
    StringBuilder all = new StringBuilder();
    for (T x : xs) {
      all.append(all.length() == 0 ? "" : " / ")
          .append(String.format(Locale.ROOT, "%.2f", f.applyAsDouble(x)));
    }
    return String.format(Locale.ROOT, "%.2f s (%s)", median(xs, f), all);
  }

  private static <T> String mib(List<T> xs, ToDoubleFunction<T> kib) {
    return String.format(Locale.ROOT, "%,.0f MiB", median(xs, kib) / 1024);
  }
}
