package dev.idem.bench;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The command lines of {@code idem-bench e2e}'s child processes, said once for all its parts:
 * idem's CLI from the run's private jar or as {@code bin/idem}, the harness's own child JVMs (the
 * baselines, DuckDB) and GNU sort. Every contender is a child process, so that its wall time, peak
 * RSS and CPU time are its own.
 *
 * <p>JVM memory: every child JVM gets a fixed heap ({@code -Xms} = {@code -Xmx}, so the heap is
 * never resized mid-run) but no {@code -XX:+AlwaysPreTouch}: pre-touching would make every RSS
 * equal to the heap and add the touch time to every cold start, the two things measured here.
 */
final class E2eCommands {

  private final Path idemJar;
  private final String benchClassPath;
  private final String java;

  /** {@code idemJar}: the run's private copy of idem's CLI jar. */
  E2eCommands(Path idemJar) {
    this.idemJar = idemJar;
    // the baselines run from the same (private) jar as this harness
    this.benchClassPath = System.getProperty("java.class.path");
    this.java = ProcessHandle.current().info().command().orElse("java");
  }

  static int cores() {
    return Runtime.getRuntime().availableProcessors();
  }

  /**
   * {@code bin/idem} by its absolute path: the script a user runs, with its own heap policy and the
   * tree's built jar (not the private copy), so a rebuild during the run changes what it runs.
   */
  static String binIdem() {
    return Path.of("bin/idem").toAbsolutePath().toString();
  }

  /** The java command line that runs idem's CLI from the private jar, as bin/idem does. */
  List<String> idem(String heap) {
    return new ArrayList<>(
        List.of(
            java,
            "-Xms" + heap,
            "-Xmx" + heap,
            "-Xlog:disable",
            "-Xlog:all=warning:stderr",
            "-jar",
            idemJar.toString()));
  }

  /** The java command line that runs {@code main} from this harness's class path. */
  List<String> harness(String heap, Class<?> main) {
    return new ArrayList<>(
        List.of(java, "-Xms" + heap, "-Xmx" + heap, "-cp", benchClassPath, main.getName()));
  }

  /** The child JVM that runs {@link DuckDbDedup} from the private jar, with a 256 MiB heap. */
  ThroughputBenchmark.Command duckdb(String memoryLimit, String key, String via) {
    return duckdb("256m", cores(), true, memoryLimit, key, via);
  }

  /**
   * As {@link #duckdb(String, String, String)} with a heap of {@code heap} (-Xms = -Xmx) for the
   * JVM that drives DuckDB (DuckDB's own memory is native, outside it), {@code threads} and {@code
   * preserve_insertion_order}.
   */
  ThroughputBenchmark.Command duckdb(
      String heap,
      int threads,
      boolean preserveInsertionOrder,
      String memoryLimit,
      String key,
      String via) {
    return (in, out, scratch, stats) -> {
      List<String> cmd = harness(heap, DuckDbDedup.class);
      cmd.addAll(
          List.of(
              "--threads",
              Integer.toString(threads),
              "--preserve-insertion-order",
              Boolean.toString(preserveInsertionOrder),
              "--memory-limit",
              memoryLimit,
              "--temp",
              scratch.resolve("duckdb-temp").toString(),
              "--via",
              via,
              "--stats",
              stats.toString()));
      if (key != null) {
        cmd.addAll(List.of("--key", key));
      }
      cmd.addAll(List.of(in.toString(), out.toString()));
      return cmd;
    };
  }

  /**
   * GNU sort, unique, with its own temporary directory and a buffer of {@code buffer} (-S): the ×
   * sort reference of Parts B and C.
   */
  static ThroughputBenchmark.Contender sort(
      String name, String notes, Path sortTmp, String buffer, String... keyOptions) {
    return new ThroughputBenchmark.Contender(
        name,
        "GNU sort, " + cores() + " threads; " + notes,
        (in, out, st, s) -> {
          List<String> cmd = new ArrayList<>(List.of("sort", "-u"));
          cmd.addAll(List.of(keyOptions));
          cmd.addAll(
              List.of("-S", buffer, "-T", sortTmp.toString(), "-o", out.toString(), in.toString()));
          return cmd;
        },
        false,
        ThroughputBenchmark.Role.SORT_REFERENCE);
  }
}
