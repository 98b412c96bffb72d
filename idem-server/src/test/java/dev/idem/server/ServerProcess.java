package dev.idem.server;

import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** {@link TestServerMain} in a child JVM: started, killed (SIGKILL or SIGTERM), started again. */
final class ServerProcess implements AutoCloseable {

  final Path state;
  final int port;
  private final Path log;
  private Process process;

  ServerProcess(Path state, Path log) throws IOException {
    this.state = state;
    this.log = log;
    try (ServerSocket s = new ServerSocket(0)) {
      this.port = s.getLocalPort();
    }
  }

  ServerProcess start() throws IOException, InterruptedException {
    List<String> cmd =
        List.of(
            Path.of(System.getProperty("java.home"), "bin", "java").toString(),
            "-XX:TieredStopAtLevel=1",
            "-XX:+UseSerialGC",
            "-Xmx512m",
            "-cp",
            System.getProperty("java.class.path"),
            TestServerMain.class.getName(),
            state.toString(),
            Integer.toString(port));
    process =
        new ProcessBuilder(cmd)
            .redirectError(ProcessBuilder.Redirect.appendTo(log.toFile()))
            .start();
    BufferedReader r =
        new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
    String line = r.readLine();
    if (line == null || !line.startsWith("port ")) {
      process.waitFor(10, TimeUnit.SECONDS);
      throw new IOException("the server did not start: " + java.nio.file.Files.readString(log));
    }
    return this;
  }

  /** SIGKILL: nothing flushed, nothing closed. */
  void kill() throws InterruptedException {
    process.destroyForcibly();
    process.waitFor(60, TimeUnit.SECONDS);
  }

  /** SIGTERM, and the graceful stop it starts; returns the exit status. */
  int terminate() throws InterruptedException {
    process.destroy();
    if (!process.waitFor(60, TimeUnit.SECONDS)) {
      process.destroyForcibly();
      throw new AssertionError("the server did not stop on SIGTERM within 60 s");
    }
    return process.exitValue();
  }

  boolean alive() {
    return process != null && process.isAlive();
  }

  @Override
  public void close() throws InterruptedException {
    if (alive()) {
      kill();
    }
  }

  static String classpathSeparator() {
    return File.pathSeparator;
  }
}
