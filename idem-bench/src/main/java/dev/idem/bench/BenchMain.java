package dev.idem.bench;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;

/**
 * {@code bin/idem-bench filters [--quick] [--sizes N,N] [--no-snapshot] [--out DIR]} and
 * {@code bin/idem-bench structures [--quick] [--out DIR]}: parses the command line and starts
 * the run; each run writes {@code report.md} and the raw JMH logs to its own directory.
 */
public final class BenchMain {

  private static final String USAGE = "usage: idem-bench filters [--quick] [--sizes N,N,...]"
      + " [--no-snapshot] [--out DIR]\n       idem-bench structures [--quick] [--out DIR]"
      + "\n       " + E2eRun.USAGE;

  private BenchMain() {}

  public static void main(String[] args) throws Exception {
    if (args.length > 0 && args[0].equals("e2e")) {
      E2eRun.main(args);
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
      new StructureRun(quick ? StructureRun.Plan.QUICK : StructureRun.Plan.FULL, dir)
          .run(command);
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
