package dev.idem.bench;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;
import org.openjdk.jmh.runner.RunnerException;
import org.openjdk.jmh.runner.options.ChainedOptionsBuilder;
import org.openjdk.jmh.runner.options.TimeValue;

/**
 * {@code bin/idem-bench structures}: the growing, deletable and exact structures side by side with
 * their anchors at one n, plus the retained heap of the exact sets, in one report.
 */
final class StructureRun {

  /** How long each kind of measurement runs; the full plan keeps the run near 30 minutes. */
  record Plan(
      int n,
      int fresh,
      int insertWarmups,
      int insertRuns,
      int queryWarmups,
      int queryRuns,
      int querySeconds,
      int deleteWarmups,
      int deleteRuns) {
    static final Plan FULL = new Plan(10_000_000, 10_000_000, 1, 3, 2, 3, 2, 1, 3);
    static final Plan QUICK = new Plan(1_000_000, 1_000_000, 1, 1, 1, 2, 1, 0, 1);
  }

  /** Heap bytes per key of the largest contender (HashSet of Strings, with its query copies). */
  private static final long SET_BYTES_PER_KEY = 260;

  private static final long STRING_BYTES_PER_KEY = 130;

  private final Plan plan;
  private final Path outDir;
  private final Path accuracyFile;
  private final Path notesFile;
  private final ForkRunner forks;
  private final MachineInfo machine = new MachineInfo();
  private final StructureTable table;

  StructureRun(Plan plan, Path outDir) {
    this.plan = plan;
    this.outDir = outDir;
    this.accuracyFile = outDir.resolve("accuracy.tsv");
    this.notesFile = outDir.resolve("notes.tsv");
    this.forks =
        new ForkRunner(
            outDir,
            List.of(
                "-D" + Accuracy.FILE_PROPERTY + "=" + accuracyFile.toAbsolutePath(),
                "-D" + StructureBenchmark.NOTES_PROPERTY + "=" + notesFile.toAbsolutePath(),
                "-D" + StructureBenchmark.FRESH_PROPERTY + "=" + plan.fresh()));
    this.table = new StructureTable(plan.n());
  }

  void run(String command) throws RunnerException, IOException, InterruptedException {
    long start = System.nanoTime();
    String loadBefore = MachineInfo.loadAverage();
    ForkRunner.log("results and JMH logs go to " + outDir);
    machine.startSampling();
    long n = plan.n();
    String sb = Pattern.quote(StructureBenchmark.class.getName());
    TimeValue t = TimeValue.seconds(plan.querySeconds());

    ChainedOptionsBuilder hash =
        forks
            .options("key-hash", 256L * n)
            .include(sb + "\\.hashKeys$")
            .param("n", Long.toString(n))
            .warmupIterations(plan.queryWarmups())
            .warmupTime(t)
            .measurementIterations(plan.queryRuns())
            .measurementTime(t);
    table.add(forks.run("key-hash", hash));

    ChainedOptionsBuilder insert =
        forks
            .options("insert", SET_BYTES_PER_KEY * n)
            .include(sb + "\\.insert$")
            .param("structure", Structure.NAMES)
            .param("n", Long.toString(n))
            .warmupIterations(plan.insertWarmups())
            .measurementIterations(plan.insertRuns())
            .operationsPerInvocation(plan.n());
    table.add(forks.run("insert", insert));

    ChainedOptionsBuilder query =
        forks
            .options(
                "query",
                (SET_BYTES_PER_KEY + STRING_BYTES_PER_KEY) * n
                    + STRING_BYTES_PER_KEY * plan.fresh())
            .include(sb + "\\.(positive|negative)Query$")
            .param("structure", Structure.NAMES)
            .param("n", Long.toString(n))
            .warmupIterations(plan.queryWarmups())
            .warmupTime(t)
            .measurementIterations(plan.queryRuns())
            .measurementTime(t);
    table.add(forks.run("query", query));

    ChainedOptionsBuilder delete =
        forks
            .options("delete", SET_BYTES_PER_KEY * n)
            .include(sb + "\\.delete$")
            .param("structure", Structure.DELETABLE)
            .param("n", Long.toString(n))
            .warmupIterations(plan.deleteWarmups())
            .measurementIterations(plan.deleteRuns())
            .operationsPerInvocation(plan.n());
    table.add(forks.run("delete", delete));

    for (String set : Structure.SETS) {
      probe(set);
    }
    machine.stop();
    table.addAccuracy(Accuracy.readAll(accuracyFile));
    table.addNotes(readNotes());
    String report =
        header(
                command,
                loadBefore,
                MachineInfo.loadAverage(),
                Duration.ofNanos(System.nanoTime() - start))
            + table.render();
    Files.writeString(outDir.resolve("report.md"), report, StandardCharsets.UTF_8);
    System.out.println();
    System.out.println(report);
  }

  /** Runs {@link MemoryProbe} for one set in a JVM of its own, with the same flags for each. */
  private void probe(String set) throws IOException, InterruptedException {
    long heap = ForkRunner.heapMiB(3 * SET_BYTES_PER_KEY * plan.n()); // JOL's walk needs room too
    List<String> flags =
        List.of(
            "-Xms" + heap + "m", "-Xmx" + heap + "m", "-XX:+AlwaysPreTouch", ForkRunner.THP_FLAG);
    forks.noteFlags("memory-" + set, flags);
    ForkRunner.log("memory-" + set + ": running (" + String.join(" ", flags) + ")");
    String[] f =
        MemoryProbe.inOwnJvm(set, plan.n(), flags, outDir.resolve("memory-" + set + ".log"));
    if (f != null) {
      table.addProbe(f[0], Long.parseLong(f[2]), Long.parseLong(f[3]), Long.parseLong(f[4]));
    }
    ForkRunner.log("memory-" + set + ": done");
  }

  private List<String[]> readNotes() throws IOException {
    List<String[]> out = new ArrayList<>();
    if (Files.exists(notesFile)) {
      for (String line : Files.readAllLines(notesFile, StandardCharsets.UTF_8)) {
        out.add(line.split("\t", -1));
      }
    }
    return out;
  }

  private String header(String command, String loadBefore, String loadAfter, Duration took) {
    StringBuilder sb = new StringBuilder();
    sb.append("## idem-bench structures\n\n")
        .append("- command: `bin/idem-bench ")
        .append(command)
        .append("`\n")
        .append("- machine: ")
        .append(MachineInfo.summary())
        .append('\n')
        .append("- ")
        .append(machine.thpLine())
        .append('\n')
        .append("- JVM flags per group (forks=1, all with a fixed pre-touched heap):\n");
    for (String f : forks.flagsSeen()) {
      sb.append("  - ").append(f).append('\n');
    }
    sb.append("- load average before / after: ")
        .append(loadBefore)
        .append(" / ")
        .append(loadAfter)
        .append('\n')
        .append("- wall time: ")
        .append(took.toMinutes())
        .append(" min\n\n");
    return sb.toString();
  }
}
