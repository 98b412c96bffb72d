package dev.idem.bench;

import dev.idem.engine.plan.JobMemory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Exact dedup of one generated file, first occurrence of each key in input order, idem against
 * DuckDB, Polars, GNU sort and mawk, all side by side in one run; every output checked against the
 * reference ({@link LineData#check}: byte for byte and in input order, or as a set for sort).
 *
 * <ul>
 *   <li>{@code exact-lines}: URL-like whole lines ({@code compare}: the same, with the round's
 *       targets judged at the end);
 *   <li>{@code exact-jsonl}: JSON Lines keyed by field {@code id} (a repeat has other fields);
 *   <li>{@code beyond-memory}: whole lines whose exact set is far larger than a memory budget
 *       ({@code --budget}), every contender held to it.
 * </ul>
 */
final class ExactDedup extends Scenario {

  enum Kind {
    LINES,
    JSONL,
    BEYOND_MEMORY
  }

  static final List<String> LINES_DEFAULT =
      List.of("idem-state", "idem", "duckdb", "duckdb-256MB", "polars", "sort", "mawk");
  static final List<String> BEYOND_DEFAULT =
      List.of("idem-state", "idem-sort-dedup", "duckdb", "sort");

  private final Kind kind;
  private final boolean targets;

  ExactDedup(String name, Kind kind, long size, boolean targets, String summary) {
    super(name, size, summary);
    this.kind = kind;
    this.targets = targets;
  }

  @Override
  void run(Bench b) throws Exception {
    LineData.Shape shape = kind == Kind.JSONL ? LineData.Shape.JSONL : LineData.Shape.URL;
    LineData.Dist dist =
        LineData.Dist.of(b.option("dist", kind == Kind.BEYOND_MEMORY ? "mixed33" : "uniform30"));
    String scenario = kind == Kind.LINES ? "exact-lines" : name;
    Path in = b.work.resolve(String.format(Locale.ROOT, "%s-%s-%d.txt", shape, dist, b.size));
    Path factsFile = Path.of(in + ".facts.json");
    LineData.Facts facts;
    if (Files.exists(factsFile) && Files.exists(in)) {
      facts = Results.JSON.readValue(factsFile.toFile(), LineData.Facts.class);
    } else {
      Bench.log("writing " + in);
      facts = LineData.generate(shape, dist, b.size, in);
      Results.JSON.writeValue(factsFile.toFile(), facts);
    }
    int[] first =
        shape == LineData.Shape.JSONL
            ? LineData.firstRecords(dist, facts.records(), facts.distinct())
            : null;
    b.note(
        String.format(
            Locale.ROOT,
            "%s: %,d records (%,d bytes), %,d distinct keys, repeats %s",
            in.getFileName(),
            facts.records(),
            facts.bytes(),
            facts.distinct(),
            dist));
    Path out = b.work.resolve("out");
    Path tmp = b.work.resolve("tmp");
    List<Contender> contenders =
        b.select(
            catalogue(b, in, out, tmp),
            kind == Kind.BEYOND_MEMORY ? BEYOND_DEFAULT : LINES_DEFAULT);
    String ref = "idem-state";
    long timeout = Long.parseLong(b.option("timeout", "1800"));
    for (int rep = 1; rep <= b.reps; rep++) {
      for (Contender c : Bench.rotation(contenders, rep)) {
        Files.deleteIfExists(out);
        b.fresh("tmp");
        Bench.delete(b.work.resolve("state"));
        ProcessHarness.Outcome o = b.measure(c, ProcessHarness.Watch.NONE.timeout(timeout));
        LineData.Check check = LineData.check(shape, out, facts.distinct(), first);
        boolean correct = o.ok() && check.correct(c.ordered());
        String what =
            o.ok() ? check.describe(c.ordered()) : "failed (exit " + o.exit() + "): " + o.error();
        Map<String, Object> metrics = new LinkedHashMap<>();
        if (correct) {
          metrics.put("records_per_s", Math.round(facts.records() / o.wallSeconds()));
        }
        Path stats = tmp.resolve("stats.json");
        if (Files.exists(stats)) { // idem's own summary: its tier, and its time without JVM start
          var json = Results.JSON.readTree(stats.toFile());
          metrics.put("exact_store", json.path("exact_store").asText());
          metrics.put("job_s", json.path("elapsed_millis").asLong() / 1000.0);
        }
        b.record(scenario, "", c.name(), rep, o, correct, what, ref, metrics);
      }
    }
    Files.deleteIfExists(out);
    Bench.delete(tmp);
    if (targets) {
      Render.Table t = Render.tables(b.rows).get(0);
      b.notes.add(targets(t));
    }
  }

  /** Every contender this scenario knows, by name; {@code --only} picks among them. */
  private List<Contender> catalogue(Bench b, Path in, Path out, Path tmp) {
    String field = kind == Kind.JSONL ? "id" : null;
    List<String> key = field == null ? List.of("--whole-line") : List.of("--key", field);
    List<String> io =
        List.of("--stats-json", tmp.resolve("stats.json") + "", "-o", out + "", in + "");
    List<String> st = List.of("--state", b.work.resolve("state") + "");
    List<String> sortIo = List.of("-T", tmp + "", "-o", out + "", in + "");
    Map<String, String> c = Map.of("LC_ALL", "C");
    List<Contender> all = new ArrayList<>();
    if (kind == Kind.BEYOND_MEMORY) {
      String budget = b.option("budget", "256m");
      long mib = parseSize(budget) >> 20;
      String sortMemory = (JobMemory.sortMemoryFor(mib << 20) >> 20) + "m";
      all.add(Contender.idem("idem-state", budget, cat("dedup", key, "--memory", budget, st, io)));
      all.add(
          Contender.idem(
              "idem-sort-dedup",
              budget,
              cat("sort-dedup", key, "--memory", sortMemory, "--tmp", tmp, io.subList(2, 5))));
      all.add(Contender.duckdb("duckdb", DuckDbSql.dedup(in, out, field, mib + "MiB", tmp)));
      all.add(Contender.tool("sort", c, cat("sort", "-u", "-S", mib + "M", sortIo)).unordered());
      return all;
    }
    String heap = b.option("idem-heap", idemHeap(b.size));
    all.add(Contender.idem("idem-state", heap, cat("dedup", key, st, io)));
    all.add(Contender.idem("idem", heap, cat("dedup", key, io)));
    all.add(Contender.duckdb("duckdb", DuckDbSql.dedup(in, out, field, null, tmp)));
    all.add(Contender.duckdb("duckdb-256MB", DuckDbSql.dedup(in, out, field, "256MB", tmp)));
    all.add(Contender.polars("polars", in, out, field));
    List<String> sortKey = field == null ? List.of() : List.of("-t", ",", "-k", "1,1");
    all.add(Contender.tool("sort", c, cat("sort", "-u", sortKey, "-S", "64M", sortIo)).unordered());
    String awk =
        field == null
            ? "!s[$0]++"
            : "!s[match($0, /\"id\":\"[^\"]*\"/) ? substr($0, RSTART, RLENGTH) : $0]++";
    all.add(Contender.tool("mawk", Map.of(), "mawk", awk, in + "").withStdout(out));
    all.add(
        Contender.idem(
            "idem-sort-dedup", // sorts in 64 MiB, like sort -S 64M; its heap: JobMemory.sortHeap
            (JobMemory.sortHeap(64L << 20) >> 20) + "m",
            cat("sort-dedup", key, "--memory", "64m", "--tmp", tmp, io.subList(2, 5))));
    return all;
  }

  /** A command line from words and lists of words ({@code -q} after the subcommand). */
  private static String[] cat(String command, Object... parts) {
    List<String> all = new ArrayList<>(List.of(command));
    if (!command.equals("sort")) {
      all.add("-q");
    }
    for (Object p : parts) {
      if (p instanceof List<?> l) {
        l.forEach(w -> all.add(w.toString()));
      } else {
        all.add(p.toString());
      }
    }
    return all.toArray(String[]::new);
  }

  /**
   * The heap idem's own rule asks for this input with its exact set in memory ({@link
   * JobMemory#memoryTier}: twice the set, since the job only guesses its keys from the input's
   * size), in 64 MiB steps: the smallest heap with which {@code --exact-store auto} keeps the set
   * in memory, as it does under bin/idem's default heap limit.
   */
  static String idemHeap(long records) {
    long bytes = JobMemory.memoryTier(records + records / 20, true);
    return Math.max(128, ((bytes >> 20) + 63) / 64 * 64) + "m";
  }

  static long parseSize(String s) {
    String t = s.trim().toLowerCase(Locale.ROOT);
    int shift = t.endsWith("g") ? 30 : t.endsWith("m") ? 20 : t.endsWith("k") ? 10 : 0;
    return Long.parseLong(shift == 0 ? t : t.substring(0, t.length() - 1)) << shift;
  }

  /** The round's targets for {@code idem --state}, judged from the table's medians. */
  static String targets(Render.Table t) {
    StringBuilder b = new StringBuilder("Targets for idem-state (medians):\n");
    double idem = t.medianWall("idem-state");
    String[][] speed = {{"sort", "1.5"}, {"duckdb-256MB", "1.5"}, {"polars", "1.2"}};
    for (String[] s : speed) {
      double x = Stats.speedup(t.medianWall(s[0]), idem);
      b.append(
          String.format(
              Locale.ROOT,
              "- speed vs %s: %s× (target ≥ %s×): %s%n",
              s[0],
              Render.two(x),
              s[1],
              Double.isNaN(x) ? "not measured" : x >= Double.parseDouble(s[1]) ? "met" : "missed"));
    }
    for (String other : List.of("duckdb", "polars")) {
      if (t.byContender().containsKey(other) && t.byContender().containsKey("idem-state")) {
        double mine = t.medianRssMib("idem-state");
        double theirs = t.medianRssMib(other);
        b.append(
            String.format(
                Locale.ROOT,
                "- peak RSS vs %s: %,.0f MiB against %,.0f MiB (target: less): %s%n",
                other,
                mine,
                theirs,
                mine < theirs ? "met" : "missed"));
      }
    }
    return b.toString();
  }
}
