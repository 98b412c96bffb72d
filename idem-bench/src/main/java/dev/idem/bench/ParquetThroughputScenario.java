package dev.idem.bench;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * {@code parquet-throughput}: a whole dedup job over a table in Parquet files ({@link TableLake}),
 * the first row of each {@code id} in file and row order written as zstd Parquet, side by side:
 * {@code idem dedup} without and with {@code --state}, Polars' streaming {@code
 * scan_parquet(…).unique(keep='first', maintain_order=True).sink_parquet(…)}, and DuckDB's
 * order-preserving {@code row_number()} dedup to Parquet. Every output is read back and checked row
 * by row against the reference.
 */
final class ParquetThroughputScenario extends Scenario {

  ParquetThroughputScenario() {
    super(
        "parquet-throughput",
        10_000_000,
        "A whole Parquet dedup job (10 zstd files; id, seq, url, score, payload; the first row"
            + " per id, in order): idem without and with --state against Polars and DuckDB."
            + " --set files=N (default 10), --set idem-heap=SIZE (default 1g),"
            + " --set idem-opts='JVM FLAGS' (added to idem's, e.g. a flight recording).");
  }

  @Override
  void run(Bench b) throws Exception {
    int files = Integer.parseInt(b.option("files", "10"));
    String heap = b.option("idem-heap", "1g");
    Path data = b.work.resolve(String.format(Locale.ROOT, "table-%d-%d", b.size, files));
    Files.createDirectories(data);
    long distinct = TableLake.ensure(data, b.size, files);
    Path lake = data.resolve("lake").toAbsolutePath();
    Path out = b.work.resolve("table-out").toAbsolutePath();
    Path state = b.work.resolve("table-state").toAbsolutePath();
    Path single = b.work.resolve("table-out.parquet").toAbsolutePath();
    b.note(
        String.format(
            Locale.ROOT, "%,d rows, %,d distinct ids, %d files", b.size, distinct, files));

    Contender idem =
        withOpts(
            Contender.idem("idem", heap, "dedup", "-q", "--key", "id", "-o", out + "/", lake + ""),
            b);
    Contender idemState =
        withOpts(
            Contender.idem(
                "idem-state",
                heap,
                "dedup",
                "-q",
                "--key",
                "id",
                "--state",
                state + "",
                "-o",
                out + "/",
                lake + ""),
            b);
    Contender polars = Contender.polarsParquet("polars", lake + "/*.parquet", single, "id");
    List<String> sql = DuckDbSql.settings(null, b.work.resolve("duckdb-temp"));
    sql.add(
        "COPY (SELECT * EXCLUDE (rn, filename, file_row_number) FROM (SELECT *, row_number()"
            + " OVER (PARTITION BY id ORDER BY filename, file_row_number) AS rn FROM read_parquet("
            + DuckDbSql.literal(lake + "/*.parquet")
            + ", filename = true, file_row_number = true)) WHERE rn = 1"
            + " ORDER BY filename, file_row_number) TO "
            + DuckDbSql.literal(single + "")
            + " (FORMAT parquet, COMPRESSION zstd)");
    Contender duckdb = Contender.duckdb("duckdb", sql);
    List<Contender> all = List.of(idem, idemState, polars, duckdb);
    List<Contender> run = b.select(all, List.of("idem", "idem-state", "polars", "duckdb"));

    for (int rep = 1; rep <= b.reps; rep++) {
      for (Contender c : Bench.rotation(run, rep)) {
        Bench.delete(out);
        Bench.delete(state);
        Files.deleteIfExists(single);
        ProcessHarness.Outcome o = b.measure(c, ProcessHarness.Watch.NONE);
        List<Path> written =
            c.name().startsWith("idem") ? ParquetLake.parquetFiles(out) : List.of(single);
        LineData.Check k = TableLake.check(written, b.size, distinct);
        Map<String, Object> metrics = new LinkedHashMap<>();
        metrics.put("rows_per_s", Math.round(b.size / o.wallSeconds()));
        b.record(
            "parquet-throughput",
            "whole job",
            c.name(),
            rep,
            o,
            o.ok() && k.correct(true),
            k.describe(true),
            "polars",
            metrics);
      }
    }
    Bench.delete(out);
    Bench.delete(state);
    Files.deleteIfExists(single);
  }

  /** {@code c} with {@code --set idem-opts} added to its JVM flags. */
  private static Contender withOpts(Contender c, Bench b) {
    String extra = b.option("idem-opts", "");
    if (extra.isBlank()) {
      return c;
    }
    Map<String, String> env = new LinkedHashMap<>(c.env());
    env.merge("IDEM_JAVA_OPTS", extra, (a, x) -> a + " " + x);
    return new Contender(
        c.name(), c.command(), Map.copyOf(env), c.stdout(), c.missing(), c.ordered(), c.note());
  }
}
