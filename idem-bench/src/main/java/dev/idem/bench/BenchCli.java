package dev.idem.bench;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code bin/idem-bench SCENARIO [--size N] [--reps N] [--only A,B] ...}: runs one scenario,
 * appends its runs to the results file and prints their tables; {@code render} prints the tables
 * (and SVG plots) of a results file; {@code jmh} runs the JMH benchmarks of {@code
 * dev.idem.bench.jmh}.
 */
@Command(
    name = "idem-bench",
    mixinStandardHelpOptions = true,
    description = "idem's benchmarks: scenarios side by side with their peers, results as data.")
public final class BenchCli implements Runnable {

  static List<Scenario> scenarios() {
    return List.of(
        new ExactDedup(
            "compare",
            ExactDedup.Kind.LINES,
            2_000_000,
            true,
            "The README's headline table: exact-lines with idem --state, idem, DuckDB (no limit,"
                + " and 256MB), Polars, GNU sort and mawk side by side, and the round's targets."),
        new ExactDedup(
            "exact-lines",
            ExactDedup.Kind.LINES,
            2_000_000,
            false,
            "Exact dedup of URL-like lines (30% repeats), first occurrence in input order."),
        new ExactDedup(
            "exact-jsonl",
            ExactDedup.Kind.JSONL,
            2_000_000,
            false,
            "Exact dedup of JSON Lines keyed by field id (30% repeats)."),
        new ExactDedup(
            "beyond-memory",
            ExactDedup.Kind.BEYOND_MEMORY,
            6_000_000,
            false,
            "Exact dedup of lines whose exact set is larger than --budget (default 256m)."),
        new RestartScenario(),
        new ParquetScenario(),
        new ParquetThroughputScenario(),
        new NearDupScenario(),
        new WindowScenario(),
        new ServeScenario(),
        new ClusterScenario());
  }

  public static void main(String[] args) {
    CommandLine cli = new CommandLine(new BenchCli());
    for (Scenario s : scenarios()) {
      CommandLine sub = new CommandLine(new Run(s));
      sub.getCommandSpec()
          .usageMessage()
          .description( // picocli formats descriptions: a % must be doubled
              s.summary.replace("%", "%%"), String.format("Default size: %,d.", s.defaultSize));
      cli.addSubcommand(s.name, sub);
    }
    cli.addSubcommand("render", new RenderCommand());
    cli.addSubcommand("jmh", new JmhCommand());
    System.exit(cli.execute(args));
  }

  @Override
  public void run() {
    new CommandLine(this).usage(System.out);
  }

  /** One scenario's run. */
  @Command(mixinStandardHelpOptions = true)
  static final class Run implements Callable<Integer> {
    private final Scenario scenario;

    @Option(
        names = {"--size", "--lines", "--records", "--ids", "--docs", "--events", "--rows"},
        description = "How much data: lines, ids, documents, events or rows.")
    Long size;

    @Option(names = "--reps", defaultValue = "3", description = "Runs of each contender.")
    int reps;

    @Option(names = "--only", description = "Contenders to run (comma-separated).")
    String only;

    @Option(names = "--dist", description = "How repeats are spread (uniform30, mixed30, ...).")
    String dist;

    @Option(names = "--budget", description = "beyond-memory: every contender's memory.")
    String budget;

    @Option(names = "--set", description = "Other options of a scenario: KEY=VALUE.")
    Map<String, String> set = new LinkedHashMap<>();

    @Option(
        names = "--results",
        defaultValue = "bench-results/results.jsonl",
        description = "The results file each run appends to (default: ${DEFAULT-VALUE}).")
    Path results;

    @Option(
        names = "--work",
        defaultValue = "bench-results/work",
        description = "Scratch: data (kept for the next run), outputs, logs.")
    Path work;

    @Option(names = "--svg", description = "Also write each table as an SVG plot into DIR.")
    Path svg;

    Run(Scenario scenario) {
      this.scenario = scenario;
    }

    @Override
    public Integer call() throws Exception {
      Map<String, String> options = new LinkedHashMap<>(set);
      if (dist != null) {
        options.put("dist", dist);
      }
      if (budget != null) {
        options.put("budget", budget);
      }
      Files.createDirectories(work);
      Scenario.Bench b =
          new Scenario.Bench(
              size == null ? scenario.defaultSize : size,
              reps,
              Scenario.Bench.list(only),
              work,
              new Results(results),
              options);
      scenario.run(b);
      System.out.println(Render.all(b.rows, svg));
      b.notes.forEach(System.out::println);
      System.out.println("Results appended to " + results);
      return 0;
    }
  }

  @Command(name = "render", mixinStandardHelpOptions = true, description = "Tables and plots.")
  static final class RenderCommand implements Callable<Integer> {
    @Parameters(defaultValue = "bench-results/results.jsonl", description = "The results file.")
    Path results;

    @Option(names = "--scenario", description = "Only this scenario's rows.")
    String scenario;

    @Option(names = "--since", description = "Only rows of this date (yyyy-mm-dd) or later.")
    String since;

    @Option(names = "--svg", description = "Write each table as an SVG plot into DIR.")
    Path svg;

    @Override
    public Integer call() throws Exception {
      List<Results.Row> rows = new ArrayList<>();
      for (Results.Row r : Results.read(results)) {
        if ((scenario == null || scenario.equals(r.scenario()))
            && (since == null || r.time().compareTo(since) >= 0)) {
          rows.add(r);
        }
      }
      System.out.print(Render.all(rows, svg));
      return 0;
    }
  }
}
