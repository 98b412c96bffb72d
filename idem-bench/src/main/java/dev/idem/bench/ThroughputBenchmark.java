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
 * Part B of the end-to-end benchmark: whole-line dedup of one file by mawk, GNU sort and idem, one
 * after another; wall time, records/s, peak RSS, and the output checked against the reference.
 */
final class ThroughputBenchmark {

  /** One contender: a command that reads {@code in} and writes {@code out} (or stdout). */
  record Contender(String name, String notes, Command command, boolean writesStdout) {}

  interface Command {
    List<String> of(Path in, Path out, Path state, Path stats);
  }

  record Row(
      Contender contender,
      ChildRun.Outcome outcome,
      OutputCheck check,
      Map<String, String> stats) {}

  private final E2eData.Facts facts;
  private final Path input;
  private final Path work;
  private final Path logs;

  ThroughputBenchmark(E2eData.Facts facts, Path input, Path work, Path logs) {
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
            .env(Map.of("LC_ALL", "C"));
    if (c.writesStdout()) {
      child.stdoutTo(out);
    }
    ChildRun.Outcome o = child.run(0, 0);
    OutputCheck check = OutputCheck.of(E2eData.Shape.URL_LINES, out, facts.distinct());
    Map<String, String> s = ResumeBenchmark.readStats(stats);
    ForkRunner.log(String.format(Locale.ROOT, "  %s: %s %s", c.name(), o, check));
    String slug = dir.getFileName().toString();
    Files.copy(
        dir.resolve("log.txt"), logs.resolve(slug + ".log"), StandardCopyOption.REPLACE_EXISTING);
    // the outputs are as large as the input: free the disk before the next contender
    Files.deleteIfExists(out);
    E2eRun.deleteTree(dir.resolve("state"));
    return new Row(c, o, check, s);
  }

  static List<String> table(List<Row> rows, long records) {
    List<String> t = new ArrayList<>();
    t.add(
        "| command | notes | wall | records/s | peak RSS | exact (0 missed, 0 duplicated) | "
            + "input order |");
    t.add("|---|---|---|---|---|---|---|");
    for (Row r : rows) {
      ChildRun.Outcome o = r.outcome();
      String exact =
          o.exitCode() != 0
              ? "failed (exit " + o.exitCode() + ")"
              : r.check().exact()
                  ? "yes"
                  : String.format(
                      Locale.ROOT,
                      "no: %,d missed, %,d dup.",
                      r.check().missed(),
                      r.check().duplicated() + r.check().unknown());
      t.add(
          String.format(
              Locale.ROOT,
              "| %s | %s | %.1f s | %,.0f | %s | %s | %s |",
              r.contender().name(),
              r.contender().notes(),
              o.wallSeconds(),
              records / o.wallSeconds(),
              ResumeBenchmark.mib(o.peakRssKiB()),
              exact,
              r.check().inOrder() ? "yes" : "no"));
    }
    return t;
  }
}
