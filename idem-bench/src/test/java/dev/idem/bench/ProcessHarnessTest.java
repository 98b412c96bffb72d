package dev.idem.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The harness against children that do known things; no wall-clock time is asserted. */
class ProcessHarnessTest {

  @TempDir Path dir;

  private static Contender child(String... args) {
    List<String> cmd = new ArrayList<>();
    cmd.add(ProcessHandle.current().info().command().orElse("java"));
    // a heap that grows with what the child allocates, so its RSS follows the allocation
    cmd.addAll(List.of("-Xms8m", "-Xmx600m", "-XX:+UseSerialGC", "-Xshare:off"));
    cmd.addAll(List.of("-cp", System.getProperty("java.class.path"), TestChild.class.getName()));
    cmd.addAll(List.of(args));
    return Contender.of("child", cmd, Map.of(), null);
  }

  private long rssGrowthMiB(boolean gnuTime) throws Exception {
    ProcessHarness.Outcome none =
        ProcessHarness.run(child("alloc", "0"), ProcessHarness.Watch.NONE, dir, gnuTime);
    ProcessHarness.Outcome some =
        ProcessHarness.run(child("alloc", "256"), ProcessHarness.Watch.NONE, dir, gnuTime);
    assertThat(none.ok()).as(none.stderrTail()).isTrue();
    assertThat(some.ok()).as(some.stderrTail()).isTrue();
    assertThat(some.stdout()).contains("ready " + (256 << 20));
    return (some.rssKiB() - none.rssKiB()) >> 10;
  }

  @Test
  void peakRssFromProcGrowsByWhatTheChildTouched() throws Exception {
    assertThat(rssGrowthMiB(false)).isBetween(240L, 300L);
  }

  @Test
  void peakRssFromGnuTimeGrowsByWhatTheChildTouched() throws Exception {
    assumeTrue(Files.isExecutable(ProcessHarness.GNU_TIME), "GNU time is not installed");
    assertThat(rssGrowthMiB(true)).isBetween(240L, 300L);
  }

  @Test
  void cpuTimeCountsWhatTheChildBurned() throws Exception {
    for (boolean gnuTime : new boolean[] {false, Files.isExecutable(ProcessHarness.GNU_TIME)}) {
      ProcessHarness.Outcome o =
          ProcessHarness.run(child("spin", "600"), ProcessHarness.Watch.NONE, dir, gnuTime);
      assertThat(o.ok()).isTrue();
      assertThat(o.cpuSeconds()).isGreaterThanOrEqualTo(0.55);
    }
  }

  @Test
  void killsWhenTheOutputReachesAFractionOfItsSize() throws Exception {
    Path out = dir.resolve("out.txt");
    long full = 1000 * 8;
    ProcessHarness.Outcome o =
        ProcessHarness.run(
            child("lines", "1000", "2", out.toString()),
            ProcessHarness.Watch.NONE.killWhen(ProcessHarness.Watch.reaches(out, full / 2)),
            dir);
    assertThat(o.killed()).isTrue();
    assertThat(o.ok()).isFalse();
    long size = Files.size(out);
    assertThat(size).isGreaterThanOrEqualTo(full / 2).isLessThan(full);
    assertThat(o.rssKiB()).isPositive(); // the rusage of a killed child is still known
  }

  @Test
  void killsOnALineAndNotesWhenTheChildWasReady() throws Exception {
    ProcessHarness.Outcome o =
        ProcessHarness.run(
            child("say", "KILL-POINT"),
            ProcessHarness.Watch.NONE.readyOnLine("KILL").killOnLine("KILL-POINT").timeout(50),
            dir);
    assertThat(o.killed()).isTrue();
    assertThat(o.stdout()).containsExactly("KILL-POINT now");
    assertThat(o.readySeconds()).isPositive().isLessThanOrEqualTo(o.wallSeconds());
  }

  @Test
  void readyIsWhenTheOutputFirstGrewNeverBeforeTheChildWrote() throws Exception {
    Path out = dir.resolve("late.txt");
    ProcessHarness.Outcome o =
        ProcessHarness.run(
            child("late", "400", out.toString()),
            ProcessHarness.Watch.NONE.readyWhen(ProcessHarness.Watch.grows(out, 0)),
            dir);
    assertThat(o.ok()).isTrue();
    assertThat(o.readySeconds()).isGreaterThanOrEqualTo(0.4).isLessThanOrEqualTo(o.wallSeconds());
  }

  @Test
  void statReadsTheLastValueOfANameInTheChildsLines() {
    ProcessHarness.Outcome o =
        new ProcessHarness.Outcome(
            0, 1, 1, 1, -1, false, List.of("RESULT a=1 b=x", "RESULT a=2 missed=0"), "");
    assertThat(o.stat("a")).isEqualTo("2");
    assertThat(o.stat("missed")).isEqualTo("0");
    assertThat(o.stat("b")).isEqualTo("x");
    assertThat(o.stat("c")).isNull();
  }
}
