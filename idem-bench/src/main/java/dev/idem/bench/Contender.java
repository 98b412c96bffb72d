package dev.idem.bench;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * One contender: a child process's command line, its environment and where its standard output goes
 * (null: to the harness, which reads its lines). {@code missing} says why it cannot run here (a
 * tool or a Python package not installed), null when it can; {@code ordered}: it promises input
 * order (GNU sort does not). The factories below are the thin adapters of every tool measured.
 *
 * <p>JVM contenders get a fixed, pre-touched heap ({@code -Xms} = {@code -Xmx}, {@code
 * -XX:+AlwaysPreTouch}): the first touch of fresh memory is slow on the shared machine, and a heap
 * that grows mid-run would be timed. Their RSS is then at least the heap.
 */
record Contender(
    String name,
    List<String> command,
    Map<String, String> env,
    Path stdout,
    String missing,
    boolean ordered,
    String note) {

  private static final Map<String, String> PROBES = new ConcurrentHashMap<>();

  Contender withStdout(Path file) {
    return new Contender(name, command, env, file, missing, ordered, note);
  }

  Contender unordered() {
    return new Contender(name, command, env, stdout, missing, false, note);
  }

  Contender named(String newName) {
    return new Contender(newName, command, env, stdout, missing, ordered, note);
  }

  static Contender of(String name, List<String> command, Map<String, String> env, String missing) {
    return new Contender(name, List.copyOf(command), Map.copyOf(env), null, missing, true, "");
  }

  /** The JVM flags of a fixed, pre-touched heap. */
  static String heapFlags(String heap) {
    return "-Xms" + heap + " -Xmx" + heap + " -XX:+AlwaysPreTouch";
  }

  /** {@code bin/idem ARGS}, as a user runs it, with a fixed, pre-touched heap. */
  static Contender idem(String name, String heap, String... args) {
    List<String> cmd = new ArrayList<>(List.of(Path.of("bin/idem").toAbsolutePath().toString()));
    cmd.addAll(Arrays.asList(args));
    boolean built = Files.exists(Path.of("idem-cli/target/idem.jar"));
    return of(
        name,
        cmd,
        Map.of("IDEM_JAVA_OPTS", heapFlags(heap)),
        built ? null : "idem-cli/target/idem.jar not built (./mvnw -o -q -B package -DskipTests)");
  }

  /** A class of this module in a JVM of its own, with a fixed, pre-touched heap. */
  static Contender java(String name, String heap, Class<?> main, String... args) {
    List<String> cmd = new ArrayList<>();
    cmd.add(ProcessHandle.current().info().command().orElse("java"));
    cmd.addAll(Arrays.asList(heapFlags(heap).split(" ")));
    cmd.addAll(List.of("-cp", System.getProperty("java.class.path"), main.getName()));
    cmd.addAll(Arrays.asList(args));
    return of(name, cmd, Map.of(), null);
  }

  /** A command found on the PATH. */
  static Contender tool(String name, Map<String, String> env, String... cmd) {
    return of(name, List.of(cmd), env, onPath(cmd[0]) ? null : cmd[0] + " is not installed");
  }

  /** {@code dedup.py polars IN OUT [KEY]}: Polars, when its package is installed. */
  static Contender polars(String name, Path in, Path out, String key) {
    List<String> cmd = new ArrayList<>(List.of(python(), script(), "polars", in + "", out + ""));
    if (key != null) {
      cmd.add(key);
    }
    return of(name, cmd, Map.of(), pythonMissing("polars"));
  }

  /**
   * {@code dedup.py polars-parquet GLOB OUT KEY}: Polars' streaming engine over Parquet files, the
   * first row of each {@code key} in file and row order, sunk to one zstd Parquet file.
   */
  static Contender polarsParquet(String name, String glob, Path out, String key) {
    List<String> cmd = List.of(python(), script(), "polars-parquet", glob, out + "", key);
    return of(name, cmd, Map.of(), pythonMissing("polars"));
  }

  /**
   * DuckDB running {@code statements}: its Python package where installed (no JVM in its RSS), else
   * its JDBC driver in a JVM of this module with a 64 MiB heap (DuckDB's memory is native).
   */
  static Contender duckdb(String name, List<String> statements) {
    if (pythonMissing("duckdb") == null) {
      List<String> cmd = new ArrayList<>(List.of(python(), script(), "duckdb"));
      cmd.addAll(statements);
      return new Contender(name, cmd, Map.of(), null, null, true, "DuckDB (Python)");
    }
    Contender c = java(name, "64m", DuckDbSql.class, statements.toArray(String[]::new));
    return new Contender(name, c.command(), Map.of(), null, null, true, "DuckDB (JDBC)");
  }

  static boolean onPath(String exe) {
    if (exe.contains("/")) {
      return Files.isExecutable(Path.of(exe));
    }
    for (String dir : System.getenv().getOrDefault("PATH", "").split(":")) {
      if (!dir.isEmpty() && Files.isExecutable(Path.of(dir, exe))) {
        return true;
      }
    }
    return false;
  }

  static String python() {
    return System.getenv().getOrDefault("IDEM_BENCH_PYTHON", "python3");
  }

  /** Null when {@code python3 -c "import PACKAGE"} works; else why not. */
  static String pythonMissing(String pkg) {
    return PROBES
        .computeIfAbsent(
            pkg,
            p -> {
              try {
                Process proc =
                    new ProcessBuilder(python(), "-c", "import " + p)
                        .redirectErrorStream(true)
                        .redirectOutput(ProcessBuilder.Redirect.DISCARD)
                        .start();
                return proc.waitFor(60, TimeUnit.SECONDS) && proc.exitValue() == 0
                    ? ""
                    : "Python package " + p + " is not installed for " + python();
              } catch (IOException e) {
                return python() + " is not installed";
              } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return "interrupted";
              }
            })
        .transform(s -> s.isEmpty() ? null : s);
  }

  /** The Python contenders' script, copied out of this jar once per run. */
  static synchronized String script() {
    return PROBES.computeIfAbsent(
        "script",
        k -> {
          try (InputStream in = Contender.class.getResourceAsStream("dedup.py")) {
            Path f = Files.createTempFile("idem-bench-", ".py");
            f.toFile().deleteOnExit();
            Files.copy(in, f, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
            return f.toString();
          } catch (IOException e) {
            throw new UncheckedIOException(e);
          }
        });
  }
}
