package dev.idem.bench;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;

/**
 * {@code bin/idem-bench filters [--quick] [--sizes N,N] [--no-snapshot] [--out DIR]} and {@code
 * bin/idem-bench structures [--quick] [--out DIR]}: parses the command line and starts the run;
 * each run writes {@code report.md} and the raw JMH logs to its own directory.
 */
public final class BenchMain {

  private static final String USAGE =
      "usage: idem-bench filters [--quick] [--sizes N,N,...]"
          + " [--no-snapshot] [--out DIR]\n       idem-bench structures [--quick] [--out DIR]"
          + "\n       idem-bench windows [--events N] [--runs N] [--quick] [--out DIR]"
          + "\n       "
          + HotPathRun.USAGE.substring("usage: ".length())
          + "\n       "
          + E2eRun.USAGE
          + "\n       "
          + ParquetRun.USAGE
          + "\n       "
          + NearDupRun.USAGE
          + "\n       "
          + RedisRun.USAGE
          + "\n       "
          + RestartRun.USAGE
          + "\n       "
          + SortDedupRun.USAGE.substring("usage: ".length());

  private BenchMain() {}

  public static void main(String[] args) throws Exception {
    if (args.length > 0 && args[0].equals("sort-dedup")) {
      SortDedupRun.main(args);
      return;
    }
    if (args.length > 0 && args[0].equals("hotpath")) {
      HotPathRun.main(args);
      return;
    }
    if (args.length > 0 && args[0].equals("near-dup")) {
      NearDupRun.main(args);
      return;
    }
    if (args.length > 0 && args[0].equals("redis")) {
      RedisRun.main(args);
      return;
    }
    if (args.length > 0 && args[0].equals("restart")) {
      RestartRun.main(args);
      return;
    }
    if (args.length > 0 && args[0].equals("e2e")) {
      E2eRun.main(args);
      return;
    }
    if (args.length > 0 && args[0].equals("parquet")) {
      ParquetRun.main(args);
      return;
    }
    if (args.length > 0 && args[0].equals("windows")) {
      windows(args);
      return;
    }
    if (args.length == 0 || !(args[0].equals("filters") || args[0].equals("structures"))) {
      usage(null);
    }
    boolean quick = false;
    boolean snapshot = true;
    Path out = Path.of("bench-results");
    List<Long> sizes = null;
    for (int i = 1; i < args.length; i++) {
      switch (args[i]) {
        case "--quick" -> quick = true;
        case "--no-snapshot" -> snapshot = false;
        case "--sizes" -> sizes = parseSizes(args[++i]);
        case "--out" -> out = Path.of(args[++i]);
        default -> usage("unknown option " + args[i]);
      }
    }
    String stamp = LocalDateTime.now().format(DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss"));
    Path dir = out.resolve(args[0] + "-" + stamp);
    Files.createDirectories(dir);
    String command = String.join(" ", args);
    if (args[0].equals("filters")) {
      FilterRun.Plan plan = quick ? FilterRun.Plan.QUICK : FilterRun.Plan.FULL;
      if (sizes != null) {
        plan = plan.withSizes(sizes);
      }
      new FilterRun(plan, dir).run(snapshot, command);
    } else {
      if (sizes != null || !snapshot) {
        usage("structures takes only --quick and --out");
      }
      new StructureRun(quick ? StructureRun.Plan.QUICK : StructureRun.Plan.FULL, dir).run(command);
    }
  }

  /** {@code windows}: the full run also writes the plot to docs/windows-state.svg. */
  private static void windows(String[] args) throws Exception {
    boolean quick = false;
    Long events = null;
    Long runs = null;
    Path out = Path.of("bench-results");
    for (int i = 1; i < args.length; i++) {
      switch (args[i]) {
        case "--quick" -> quick = true;
        case "--events" -> events = i + 1 < args.length ? parseCount(args[++i]) : null;
        case "--runs" -> runs = i + 1 < args.length ? parseCount(args[++i]) : null;
        case "--out" -> out = Path.of(args[++i]);
        default -> usage("unknown option " + args[i] + " for windows");
      }
    }
    if (events != null && events < 1000) {
      usage("--events needs a count of at least 1000, like 50000000 or 50_000_000");
    }
    WindowRun.Plan plan = quick ? WindowRun.Plan.QUICK : WindowRun.Plan.FULL;
    if (events != null) {
      plan = plan.withEvents(events);
    }
    if (runs != null) {
      if (runs < 1 || runs > 20) {
        usage("--runs needs a count of timed runs from 1 to 20");
      }
      plan = new WindowRun.Plan(plan.events(), runs.intValue(), plan.heapMiB());
    }
    Path dir =
        out.resolve(
            "windows-"
                + LocalDateTime.now().format(DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss")));
    Files.createDirectories(dir);
    Path docs = Path.of("docs");
    Path svg = !quick && Files.isDirectory(docs) ? docs.resolve("windows-state.svg") : null;
    new WindowRun(plan, dir, svg).run(String.join(" ", args));
  }

  private static Long parseCount(String s) {
    try {
      return Long.parseLong(s.trim().replace("_", ""));
    } catch (NumberFormatException e) {
      usage("expected a count like 50000000 or 50_000_000, got '" + s + "'");
      return null;
    }
  }

  private static void usage(String problem) {
    if (problem != null) {
      System.err.println(problem);
    }
    System.err.println(USAGE);
    System.exit(2);
  }

  private static List<Long> parseSizes(String list) {
    List<Long> sizes = new ArrayList<>();
    for (String s : list.split(",")) {
      sizes.add(Long.parseLong(s.trim().replace("_", "")));
    }
    return sizes;
  }
}
