package dev.idem.bench;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * {@code parquet}: a lake of Parquet files ({@link ParquetLake}) deduplicated by {@code idem dedup
 * --key id --state}, killed with SIGKILL once 70 % of the files are judged (when that part file is
 * published), then restarted three ways from the same killed state: a rescan of the Parquet written
 * so far into a {@code HashSet<String>}, the same into a DuckDB table with a unique index, and
 * idem's resume (ready when its first new part file is begun). Then idem's uninterrupted throughput
 * against DuckDB's order-preserving dedup of the lake. Every idem and DuckDB output is checked row
 * by row.
 */
final class ParquetScenario extends Scenario {

  ParquetScenario() {
    super(
        "parquet",
        2_000_000,
        "A Parquet lake deduplicated by idem, killed at 70% and restarted (rescan into a HashSet,"
            + " DuckDB table + unique index, idem's resume); then throughput against DuckDB."
            + " --set files=N (default 200), --set idem-heap=SIZE (default 1g).");
  }

  @Override
  void run(Bench b) throws Exception {
    int files = Integer.parseInt(b.option("files", "200"));
    String heap = b.option("idem-heap", "1g");
    Path data = b.work.resolve(String.format(Locale.ROOT, "parquet-%d-%d", b.size, files));
    Files.createDirectories(data);
    long distinct = ParquetLake.ensure(data, b.size, files);
    Path lake = data.resolve("lake");
    Path out = b.work.resolve("parquet-out");
    Path state = b.work.resolve("parquet-state");
    Path stats = b.work.resolve("parquet-stats.json");
    Contender idem =
        Contender.idem(
            "idem",
            heap,
            "dedup",
            "-q",
            "--key",
            "id",
            "--state",
            state + "",
            "--stats-json",
            stats + "",
            "--checkpoint-every",
            Long.toString(b.size / files),
            "-o",
            out + "/",
            lake + "");
    if (idem.missing() != null) {
      b.note("skipped parquet: " + idem.missing());
      return;
    }

    // the kill: once part (70 % of the files) - 1 is published, 70 % of the input is judged
    int parts = files * 7 / 10;
    Bench.delete(out);
    Bench.delete(state);
    Path lastPart = out.resolve(String.format(Locale.ROOT, "part-%05d.parquet", parts - 1));
    ProcessHarness.Outcome killed =
        b.measure(idem, ProcessHarness.Watch.NONE.killWhen(ProcessHarness.Watch.exists(lastPart)));
    if (!killed.killed()) {
      throw new IllegalStateException("idem finished before its kill: " + killed.stderrTail());
    }
    Path saved = b.work.resolve("parquet-killed");
    Bench.copy(out, saved.resolve("out"));
    Bench.copy(state, saved.resolve("state"));
    List<Path> written = ParquetLake.parquetFiles(saved.resolve("out"));
    long writtenRows = ParquetLake.read(written, true, (id, ts, body) -> {});
    try (var all = Files.list(saved.resolve("out"))) {
      for (Path f : all.filter(f -> f.toString().endsWith(".inprogress")).toList()) {
        Files.delete(f); // what the resume deletes first: its appearance marks the next part
      }
    }
    b.note(
        String.format(
            Locale.ROOT, "killed with %d parts, %,d rows written", written.size(), writtenRows));
    Path next =
        out.resolve(String.format(Locale.ROOT, ".part-%05d.parquet.inprogress", written.size()));
    Path temp = b.work.resolve("duckdb-temp");
    String glob = saved.resolve("out").toAbsolutePath() + "/*.parquet";
    List<String> set = DuckDbSql.settings(null, temp);
    set.add("CREATE TABLE seen AS SELECT id FROM read_parquet(" + DuckDbSql.literal(glob) + ")");
    set.add("CREATE UNIQUE INDEX seen_id ON seen (id)");
    set.add("SELECT count(*) FROM seen");
    List<Contender> restarts =
        List.of(
            Contender.java(
                "rescan-hashset",
                Math.max(256, (writtenRows * 300) >> 20) + "m",
                ParquetLake.class,
                "rescan",
                saved.resolve("out") + ""),
            Contender.duckdb("duckdb-set", set),
            idem.named("idem-resume"));
    Path duckOut = b.work.resolve("duckdb.parquet");
    List<String> dedup = DuckDbSql.settings(null, temp);
    dedup.add(
        "COPY (SELECT id, ts, body FROM (SELECT *, row_number() OVER (PARTITION BY id ORDER BY"
            + " filename, file_row_number) AS rn FROM read_parquet("
            + DuckDbSql.literal(lake.toAbsolutePath() + "/*.parquet")
            + ", filename = true, file_row_number = true)) WHERE rn = 1"
            + " ORDER BY filename, file_row_number) TO "
            + DuckDbSql.literal(duckOut.toAbsolutePath().toString())
            + " (FORMAT parquet, COMPRESSION zstd)");
    List<Contender> restartsRun = b.select(restarts, names(restarts));
    List<Contender> throughputRun =
        b.select(List.of(idem, Contender.duckdb("duckdb", dedup)), List.of("idem", "duckdb"));

    for (int rep = 1; rep <= b.reps; rep++) {
      for (Contender c : Bench.rotation(restartsRun, rep)) {
        Map<String, Object> metrics = new LinkedHashMap<>();
        ProcessHarness.Outcome o;
        boolean correct;
        String check;
        if (c.name().equals("idem-resume")) {
          Bench.copy(saved.resolve("out"), out);
          Bench.copy(saved.resolve("state"), state);
          o = b.measure(c, ProcessHarness.Watch.NONE.readyWhen(ProcessHarness.Watch.exists(next)));
          metrics.put("cold_start_s", Results.round(o.readySeconds()));
          metrics.put(
              "restore_ms",
              Results.JSON.readTree(stats.toFile()).path("restore_millis").asLong(-1));
          LineData.Check k = ParquetLake.check(ParquetLake.parquetFiles(out), b.size, distinct);
          correct = o.ok() && k.correct(true);
          check = k.describe(true);
        } else {
          o = b.measure(c, ProcessHarness.Watch.NONE);
          metrics.put("cold_start_s", Results.round(o.wallSeconds()));
          String size = o.stat(c.name().equals("duckdb-set") ? "rows" : "set_size");
          correct = o.ok() && Long.toString(writtenRows).equals(size);
          check = "set of " + size + " ids for " + writtenRows + " rows written";
        }
        b.record(
            "parquet",
            "restart after a kill at 70%",
            c.name(),
            rep,
            o,
            correct,
            check,
            null,
            metrics);
      }
      for (Contender c : Bench.rotation(throughputRun, rep)) {
        Bench.delete(out);
        Bench.delete(state);
        Files.deleteIfExists(duckOut);
        ProcessHarness.Outcome o = b.measure(c, ProcessHarness.Watch.NONE);
        LineData.Check k =
            ParquetLake.check(
                c.name().equals("idem") ? ParquetLake.parquetFiles(out) : List.of(duckOut),
                b.size,
                distinct);
        Map<String, Object> metrics = new LinkedHashMap<>();
        metrics.put("rows_per_s", Math.round(b.size / o.wallSeconds()));
        b.record(
            "parquet",
            "throughput",
            c.name(),
            rep,
            o,
            o.ok() && k.correct(true),
            k.describe(true),
            "idem",
            metrics);
      }
    }
    Bench.delete(out);
    Bench.delete(state);
    Files.deleteIfExists(duckOut);
  }

  private static List<String> names(List<Contender> contenders) {
    List<String> names = new ArrayList<>();
    contenders.forEach(c -> names.add(c.name()));
    return names;
  }
}
