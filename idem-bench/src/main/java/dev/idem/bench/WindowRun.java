package dev.idem.bench;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * {@code bin/idem-bench windows [--events N] [--quick]}: idem's windowed dedup (sliding and
 * tumbling) and a HashMap TTL map over the same synthetic click stream ({@link ClickStream}), each
 * run in a JVM of its own with the same fixed, pre-touched heap, the contenders interleaved run
 * after run. The first run of each records the state over event time (with full collections for the
 * heap samples, off the clock) and is not timed; the others only time.
 */
final class WindowRun {

  /** Events, timed runs per contender (after the state run), and the heap of every fork. */
  record Plan(long events, int runs, long heapMiB) {
    static final Plan FULL = new Plan(50_000_000, 3, 6144);
    static final Plan QUICK = new Plan(3_000_000, 1, 2048);

    Plan withEvents(long n) {
      return new Plan(n, runs, heapMiB);
    }
  }

  private final Plan plan;
  private final Path outDir;
  private final Path svg;
  private final MachineInfo machine = new MachineInfo();

  /**
   * {@code svg}: where the plot goes besides the run directory (docs/ in the full run), or null.
   */
  WindowRun(Plan plan, Path outDir, Path svg) {
    this.plan = plan;
    this.outDir = outDir;
    this.svg = svg;
  }

  void run(String command) throws IOException, InterruptedException {
    long start = System.nanoTime();
    String loadBefore = MachineInfo.loadAverage();
    ForkRunner.log("results and logs go to " + outDir);
    machine.startSampling();
    List<String> flags =
        List.of(
            "-Xms" + plan.heapMiB() + "m",
            "-Xmx" + plan.heapMiB() + "m",
            "-XX:+AlwaysPreTouch",
            ForkRunner.THP_FLAG);
    Map<String, WindowResult> results = new LinkedHashMap<>();
    for (String name : WindowContender.NAMES) {
      results.put(name, new WindowResult(name));
    }
    for (int run = 0; run <= plan.runs(); run++) {
      for (String name : WindowContender.NAMES) {
        boolean stateRun = run == 0;
        List<String> lines = fork(name, run, stateRun, flags);
        results.get(name).addRun(lines, stateRun);
      }
    }
    machine.stop();
    String plot = new StateSizeSvg(plan.events()).render(results);
    Files.writeString(outDir.resolve("windows-state.svg"), plot, StandardCharsets.UTF_8);
    if (svg != null) {
      Files.writeString(svg, plot, StandardCharsets.UTF_8);
      ForkRunner.log("plot written to " + svg);
    }
    String report =
        header(
                command,
                flags,
                loadBefore,
                MachineInfo.loadAverage(),
                Duration.ofNanos(System.nanoTime() - start))
            + new WindowTable(results).render();
    Files.writeString(outDir.resolve("report.md"), report, StandardCharsets.UTF_8);
    System.out.println();
    System.out.println(report);
  }

  private List<String> fork(String name, int run, boolean stateRun, List<String> flags)
      throws IOException, InterruptedException {
    List<String> cmd =
        new ArrayList<>(
            ForkRunner.javaCommand(flags, WindowProbe.class, name, Long.toString(plan.events())));
    if (stateRun) {
      cmd.add("--state");
    }
    String label = name + (stateRun ? "-state" : "-run" + run);
    ForkRunner.log(label + ": running" + (stateRun ? " (state samples, not timed)" : " (timed)"));
    long t0 = System.nanoTime();
    Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
    List<String> lines = new ArrayList<>();
    try (BufferedReader r =
        new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
      for (String line; (line = r.readLine()) != null; ) {
        lines.add(line);
      }
    }
    int exit = p.waitFor();
    Files.write(outDir.resolve(label + ".log"), lines, StandardCharsets.UTF_8);
    ForkRunner.log(
        label
            + ": exit "
            + exit
            + " after "
            + Duration.ofNanos(System.nanoTime() - t0).toSeconds()
            + " s");
    if (exit != 0) {
      throw new IOException(
          label + " failed (exit " + exit + "), see " + outDir.resolve(label + ".log"));
    }
    return lines;
  }

  private String header(
      String command, List<String> flags, String loadBefore, String loadAfter, Duration took) {
    return "## idem-bench windows\n\n"
        + "- command: `bin/idem-bench "
        + command
        + "`\n"
        + "- machine: "
        + MachineInfo.summary()
        + '\n'
        + "- "
        + machine.thpLine()
        + '\n'
        + "- every fork: `"
        + String.join(" ", flags)
        + "`, one contender per JVM; per"
        + " contender one state run (samples, not timed) then "
        + plan.runs()
        + " timed run(s),"
        + " contenders interleaved\n"
        + "- stream: "
        + plan.events()
        + " events, 10-minute windows, max delay 30 s, allowed "
        + "lateness 1 min (see ClickStream)\n"
        + "- load average before / after: "
        + loadBefore
        + " / "
        + loadAfter
        + '\n'
        + "- wall time: "
        + took.toMinutes()
        + " min "
        + took.toSecondsPart()
        + " s\n\n";
  }
}
