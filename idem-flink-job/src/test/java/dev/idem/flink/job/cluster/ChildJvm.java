package dev.idem.flink.job.cluster;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A JVM of its own, started from a classpath file that Maven wrote, its stdout and stderr in a log
 * file that every failure message names. {@link #kill()} is {@code SIGKILL}: no shutdown hooks, as
 * when a machine dies.
 */
final class ChildJvm implements AutoCloseable {
  /** What Flink's own scripts open for Java 17 (its serializers reflect into the JDK). */
  static final List<String> ADD_OPENS =
      List.of(
          "java.base/java.lang",
          "java.base/java.util",
          "java.base/java.lang.reflect",
          "java.base/java.net",
          "java.base/java.io",
          "java.base/java.nio",
          "java.base/sun.nio.ch",
          "java.base/java.text",
          "java.base/java.time",
          "java.base/java.util.concurrent",
          "java.base/java.util.concurrent.atomic",
          "java.base/java.util.concurrent.locks");

  private final String name;
  private final Process process;
  private final Path log;

  private ChildJvm(String name, Process process, Path log) {
    this.name = name;
    this.process = process;
    this.log = log;
  }

  /**
   * Starts {@code mainClass} with {@code args}.
   *
   * @param classpath the classpath, as Maven's dependency:build-classpath writes it
   * @param jvmOptions heap size and system properties
   */
  static ChildJvm start(
      String name,
      String classpath,
      List<String> jvmOptions,
      String mainClass,
      List<String> args,
      Path logDir)
      throws IOException {
    List<String> command = new ArrayList<>();
    command.add(javaExecutable());
    command.addAll(jvmOptions);
    for (String open : ADD_OPENS) {
      command.add("--add-opens=" + open + "=ALL-UNNAMED");
    }
    command.add("-cp");
    command.add(classpath);
    command.add(mainClass);
    command.addAll(args);
    Files.createDirectories(logDir);
    Path log = logDir.resolve(name + ".log");
    Process process =
        new ProcessBuilder(command)
            .redirectErrorStream(true)
            .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()))
            .start();
    return new ChildJvm(name, process, log);
  }

  private static String javaExecutable() {
    return Path.of(System.getProperty("java.home"), "bin", "java").toString();
  }

  String name() {
    return name;
  }

  Path log() {
    return log;
  }

  boolean isAlive() {
    return process.isAlive();
  }

  long pid() {
    return process.pid();
  }

  /** Waits for a process that is meant to end by itself (a tool). */
  /** CPU time the process has used so far (all threads, user and system). */
  java.time.Duration cpuTime() {
    return process.toHandle().info().totalCpuDuration().orElse(java.time.Duration.ZERO);
  }

  int waitFor(long seconds) throws InterruptedException {
    if (!process.waitFor(seconds, TimeUnit.SECONDS)) {
      kill();
      throw new IllegalStateException(name + " did not end within " + seconds + " s; see " + log);
    }
    return process.exitValue();
  }

  /** {@code SIGKILL}, and waits until the process is gone. */
  void kill() throws InterruptedException {
    process.destroyForcibly();
    process.waitFor(30, TimeUnit.SECONDS);
  }

  @Override
  public void close() throws InterruptedException {
    if (process.isAlive()) {
      kill();
    }
  }

  @Override
  public String toString() {
    return name + " (pid " + process.pid() + ", log " + log + ")";
  }
}
