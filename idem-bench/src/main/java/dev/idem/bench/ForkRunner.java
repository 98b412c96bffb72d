package dev.idem.bench;

import java.nio.file.Path;
import java.time.Duration;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Locale;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.RunnerException;
import org.openjdk.jmh.runner.options.ChainedOptionsBuilder;
import org.openjdk.jmh.runner.options.OptionsBuilder;
import org.openjdk.jmh.runner.options.TimeValue;

/**
 * Runs one JMH group after another, each fork with a fixed, pre-touched heap sized for what the
 * group holds (first touch of memory is slow on the shared benchmark machine, and a heap that grows
 * mid-run would be timed) and with transparent huge pages requested (a random access into hundreds
 * of MB otherwise pays a TLB miss with 4 KiB pages). Remembers each group's flags for the report.
 */
final class ForkRunner {

  static final long MIB = 1L << 20;
  static final String THP_FLAG = "-XX:+UseTransparentHugePages";

  private final Path outDir;
  private final List<String> systemProperties;
  private final List<String> flagsSeen = new ArrayList<>();

  ForkRunner(Path outDir, List<String> systemProperties) {
    this.outDir = outDir;
    this.systemProperties = systemProperties;
  }

  /** Heap for a fork that holds {@code need} bytes: headroom for JMH, the JIT and garbage. */
  static long heapMiB(long need) {
    return ((long) (need * 1.15) + 512 * MIB + 256 * MIB - 1) / (256 * MIB) * 256;
  }

  ChainedOptionsBuilder options(String name, long heapNeed) {
    long heap = heapMiB(heapNeed);
    String[] flags = {"-Xms" + heap + "m", "-Xmx" + heap + "m", "-XX:+AlwaysPreTouch", THP_FLAG};
    flagsSeen.add(name + ": " + String.join(" ", flags));
    return new OptionsBuilder()
        .forks(1)
        .jvmArgs(flags)
        .jvmArgsAppend(systemProperties.toArray(new String[0]))
        .shouldFailOnError(false)
        .timeout(TimeValue.minutes(15))
        .output(outDir.resolve(name + ".jmh.log").toString());
  }

  Collection<RunResult> run(String name, ChainedOptionsBuilder options) throws RunnerException {
    long t0 = System.nanoTime();
    log(name + ": running (" + flagsSeen.get(flagsSeen.size() - 1) + ")");
    Collection<RunResult> results = new Runner(options.build()).run();
    log(
        String.format(
            Locale.ROOT,
            "%s: %d results in %s",
            name,
            results.size(),
            Duration.ofNanos(System.nanoTime() - t0).toString().substring(2).toLowerCase()));
    return results;
  }

  /**
   * The command line that runs {@code mainClass} of this class path in a JVM of its own with {@code
   * flags} (allowed to attach to itself, for JOL), followed by {@code args}: the forks started
   * outside JMH (memory and window probes).
   */
  static List<String> javaCommand(List<String> flags, Class<?> mainClass, String... args) {
    List<String> cmd = new ArrayList<>();
    cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    cmd.addAll(flags);
    cmd.addAll(
        List.of(
            "-Djdk.attach.allowAttachSelf=true",
            "-cp",
            System.getProperty("java.class.path"),
            mainClass.getName()));
    cmd.addAll(List.of(args));
    return cmd;
  }

  /** Records flags of a fork started outside JMH (e.g. the memory probe). */
  void noteFlags(String name, List<String> flags) {
    flagsSeen.add(name + ": " + String.join(" ", flags));
  }

  List<String> flagsSeen() {
    return flagsSeen;
  }

  static void log(String message) {
    System.out.println(
        "[" + LocalDateTime.now().format(DateTimeFormatter.ofPattern("HH:mm:ss")) + "] " + message);
  }
}
