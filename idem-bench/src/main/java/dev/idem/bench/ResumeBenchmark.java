package dev.idem.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Part A of the end-to-end benchmark: each strategy deduplicates the same JSONL input, dies at 35 %
 * of it, restarts, dies again at 70 %, and restarts to finish. Both restarts are timed from outside
 * (spawn to first new output byte); the last one also gives peak RSS and the counters; the final
 * output is checked against the reference.
 */
final class ResumeBenchmark {

  /** One strategy: how to start it, given its output, state directory and where to stop. */
  record Contender(String name, String heap, Launcher launcher) {}

  interface Launcher {
    /** The command for one process; {@code haltAt} &gt; 0 only for self-halting baselines. */
    List<String> command(Path out, Path state, Path stats, long haltAt);

    /** True when the harness kills the process (SIGKILL) instead of it halting itself. */
    boolean killedFromOutside();
  }

  /** What a strategy's chain of three processes came to. */
  record Row(
      Contender contender,
      ChildRun.Outcome first,
      ChildRun.Outcome restart35,
      ChildRun.Outcome restart70,
      Map<String, String> stats,
      OutputCheck check) {}

  private final E2eData.Facts facts;
  private final Path input;
  private final Path work;
  private final Path logs;

  /** {@code logs}: where each contender's stderr and stats are kept after the scratch goes. */
  ResumeBenchmark(E2eData.Facts facts, Path input, Path work, Path logs) {
    this.facts = facts;
    this.input = input;
    this.work = work;
    this.logs = logs;
  }

  Row run(Contender c) throws IOException, InterruptedException {
    Path dir = Files.createDirectories(work.resolve(c.name().replaceAll("[^A-Za-z0-9]+", "-")));
    Path out = dir.resolve("out.jsonl");
    Path state = dir.resolve("state");
    Path log = dir.resolve("log.txt");
    ChildRun.Outcome[] o = new ChildRun.Outcome[3];
    Path stats = null;
    for (int i = 0; i < 3; i++) {
      boolean last = i == 2;
      long haltAt = last || c.launcher().killedFromOutside() ? 0 : facts.killRecords()[i];
      long killAt = !last && c.launcher().killedFromOutside() ? facts.referenceBytesAtKill()[i] : 0;
      if (i > 0) {
        ForkRunner.log("  state before run " + (i + 1) + ": " + listing(state));
      }
      stats = dir.resolve("stats-" + i + ".txt");
      long base = Files.exists(out) ? Files.size(out) : 0;
      ChildRun child = new ChildRun(c.launcher().command(out, state, stats, haltAt), out, log);
      o[i] = child.run(base, killAt);
      ForkRunner.log(String.format(Locale.ROOT, "  %s run %d: %s", c.name(), i + 1, o[i]));
      if (last && o[i].exitCode() != 0) {
        ForkRunner.log("  " + c.name() + " failed, see " + log);
      }
    }
    String slug = dir.getFileName().toString();
    Files.copy(log, logs.resolve("a-" + slug + ".log"), StandardCopyOption.REPLACE_EXISTING);
    for (int i = 0; i < 3; i++) {
      Path si = dir.resolve("stats-" + i + ".txt");
      if (Files.exists(si)) {
        Files.copy(
            si,
            logs.resolve("a-" + slug + "-stats-" + (i + 1) + ".txt"),
            StandardCopyOption.REPLACE_EXISTING);
      }
    }
    Map<String, String> s = readStats(stats);
    OutputCheck check = OutputCheck.of(E2eData.Shape.JSONL, out, facts.distinct());
    ForkRunner.log("  " + c.name() + ": " + check + " " + s);
    return new Row(c, o[0], o[1], o[2], s, check);
  }

  /** The state directory's files and sizes (what a restart loads), largest first, and the total. */
  static String listing(Path state) throws IOException {
    if (!Files.isDirectory(state)) {
      return "(none)";
    }
    List<Map.Entry<String, Long>> files = new ArrayList<>();
    try (var walk = Files.walk(state)) {
      for (Path p : (Iterable<Path>) walk.filter(Files::isRegularFile)::iterator) {
        files.add(Map.entry(state.relativize(p).toString(), Files.size(p)));
      }
    }
    files.sort(Map.Entry.<String, Long>comparingByValue().reversed());
    long total = files.stream().mapToLong(Map.Entry::getValue).sum();
    StringBuilder b =
        new StringBuilder(String.format(Locale.ROOT, "%,d bytes in %d files", total, files.size()));
    for (int i = 0; i < Math.min(8, files.size()); i++) {
      b.append(
          String.format(Locale.ROOT, "; %s %,d", files.get(i).getKey(), files.get(i).getValue()));
    }
    return b.toString();
  }

  /** Stats of the last process: idem's --stats-json, or a baseline's name=value lines. */
  static Map<String, String> readStats(Path file) throws IOException {
    Map<String, String> m = new HashMap<>();
    if (!Files.exists(file)) {
      return m;
    }
    String text = Files.readString(file);
    if (text.trim().startsWith("{")) {
      JsonNode n = new ObjectMapper().readTree(text);
      n.fields().forEachRemaining(e -> m.put(e.getKey(), e.getValue().asText()));
      m.put(
          "lookups_new",
          String.valueOf(
              Math.round(
                  n.path("exact_lookups_per_new_key").asDouble() * n.path("kept").asLong())));
    } else {
      for (String line : text.split("\n")) {
        int eq = line.indexOf('=');
        if (eq > 0) {
          m.put(line.substring(0, eq), line.substring(eq + 1));
        }
      }
      m.put("exact_lookups", m.getOrDefault("lookups", "0"));
      m.put("lookups_new", m.getOrDefault("kept", "0")); // every new record was looked up once
    }
    return m;
  }

  /** The markdown table of Part A. */
  static List<String> table(List<Row> rows) {
    List<String> t = new ArrayList<>();
    t.add(
        "| strategy | heap (-Xms=-Xmx) | cold start to first new record, restart at 35 % | "
            + "… at 70 % | peak RSS of the 70 % restart | exact-tier lookups per new record | "
            + "all exact-tier lookups per record | missed | duplicated | output in input order |");
    t.add("|---|---|---|---|---|---|---|---|---|---|");
    for (Row r : rows) {
      long kept = parse(r.stats().get("kept"));
      long records = parse(r.stats().get("records"));
      t.add(
          String.format(
              Locale.ROOT,
              "| %s | %s | %s | %s | %s | %s | %s | %,d | %,d | %s |",
              r.contender().name(),
              r.contender().heap(),
              seconds(r.restart35()),
              seconds(r.restart70()),
              mib(r.restart70().peakRssKiB()),
              ratio(parse(r.stats().get("lookups_new")), kept),
              ratio(parse(r.stats().get("exact_lookups")), records),
              r.check().missed(),
              r.check().duplicated() + r.check().unknown(),
              r.check().inOrder() ? "yes" : "no"));
    }
    return t;
  }

  static String seconds(ChildRun.Outcome o) {
    return o.firstNewOutputSeconds() < 0
        ? "–"
        : String.format(Locale.ROOT, "%.2f s", o.firstNewOutputSeconds());
  }

  static String mib(long kib) {
    return kib < 0 ? "–" : String.format(Locale.ROOT, "%,d MiB", kib / 1024);
  }

  private static String ratio(long a, long b) {
    return b <= 0 ? "–" : String.format(Locale.ROOT, "%.5f", (double) a / b);
  }

  static long parse(String s) {
    try {
      return s == null ? 0 : Long.parseLong(s);
    } catch (NumberFormatException e) {
      return 0;
    }
  }
}
