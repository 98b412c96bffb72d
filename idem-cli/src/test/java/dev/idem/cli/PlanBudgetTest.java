package dev.idem.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The command {@code idem plan --memory B} recommends runs to its end in a JVM whose heap is B, as
 * {@code IDEM_JAVA_OPTS=-Xmx…} gives it under bin/idem. The plan once counted the exact set (and a
 * filter the job no longer builds) but not the heap the job itself holds, so for a set of a few
 * tens of MiB it recommended the memory tier in a budget the job could not run in.
 */
class PlanBudgetTest {

  @TempDir Path dir;

  /** 1,250,000 lines, 1,000,000 distinct: a 22 MiB exact set, a 1.8 MiB filter at 0.1 %. */
  private Path lines() throws IOException {
    StringBuilder b = new StringBuilder(12_000_000);
    for (int i = 0; i < 1_250_000; i++) {
      b.append('k').append(i < 1_000_000 ? i : (i * 7919L) % 1_000_000).append('\n');
    }
    return Files.writeString(dir.resolve("lines.txt"), b);
  }

  @Test
  void theRecommendedCommandRunsInTheHeapItWasPlannedFor() throws Exception {
    Path in = lines();
    // a budget above the set alone but below the set and the job's heap: the plan must not
    // choose memory; the partitioned method plans its files within the budget
    String tight = planAndRun(in, "36m", "tight");
    assertThat(tight).contains("--exact-store partitioned");
    // room for the set and the job's heap: memory
    String roomy = planAndRun(in, "64m", "roomy");
    assertThat(roomy).contains("--exact-store memory");
  }

  /** Plans for {@code budget}, runs the recommended command with that heap; the command run. */
  private String planAndRun(Path in, String budget, String name) throws Exception {
    Cli.Result plan =
        Cli.run("plan", "--memory", budget, "--sample", in.toString(), "--whole-line");
    assertThat(plan.status()).as(plan.err()).isZero();
    String command =
        plan.out()
            .lines()
            .dropWhile(l -> !l.startsWith("Recommended:"))
            .filter(l -> l.startsWith("  idem "))
            .findFirst()
            .orElseThrow()
            .strip();
    assertThat(command).startsWith("idem dedup --whole-line --");
    Path out = dir.resolve(name + ".txt");
    List<String> args = new ArrayList<>(Arrays.asList(command.split(" ")));
    args.remove(0);
    args.replaceAll(
        a ->
            a.equals("state")
                ? dir.resolve(name + "-state").toString()
                : a.equals("deduped.txt") ? out.toString() : a);
    args.add(1, "-q");
    Path log = dir.resolve(name + ".err");
    Process p = startAsBinIdem(budget, args, log);
    boolean exited = p.waitFor(300, TimeUnit.SECONDS);
    if (!exited) {
      p.destroyForcibly();
    }
    String err = Files.readString(log, StandardCharsets.UTF_8);
    assertThat(exited).as(command + " still running").isTrue();
    assertThat(p.exitValue()).as(command + " with -Xmx" + budget + ": " + err).isZero();
    try (var kept = Files.lines(out)) {
      assertThat(kept.count()).isEqualTo(1_000_000);
    }
    return command;
  }

  /**
   * The CLI in a child JVM with the options bin/idem passes for IDEM_JAVA_OPTS=-Xmx{@code maxHeap}
   * (its collector settings; -Xms16m only above 32 MiB).
   */
  private static Process startAsBinIdem(String maxHeap, List<String> args, Path stderr)
      throws IOException {
    List<String> command =
        new ArrayList<>(
            List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-XX:+UseSerialGC",
                "-XX:MinHeapFreeRatio=10",
                "-XX:MaxHeapFreeRatio=20",
                "-Xmn8m",
                "-Xmx" + maxHeap,
                "-Xshare:auto",
                "-cp",
                System.getProperty("java.class.path"),
                IdemCommand.class.getName()));
    if (Integer.parseInt(maxHeap.replace("m", "")) > 32) {
      command.add(1, "-Xms16m");
    }
    command.addAll(args);
    return new ProcessBuilder(command)
        .redirectOutput(ProcessBuilder.Redirect.DISCARD)
        .redirectError(stderr.toFile())
        .start();
  }
}
