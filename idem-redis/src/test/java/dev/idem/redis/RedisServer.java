package dev.idem.redis;

import java.io.IOException;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/**
 * A real redis-server for a test, on a free loopback port, without persistence; stopped by
 * {@link #close}. Fails with what to install when there is no redis-server.
 */
public final class RedisServer implements AutoCloseable {

  private final Process process;
  private final int port;

  private RedisServer(Process process, int port) {
    this.process = process;
    this.port = port;
  }

  public static RedisServer start(Path dir) throws IOException, InterruptedException {
    int port;
    try (ServerSocket s = new ServerSocket(0)) {
      port = s.getLocalPort();
    }
    Process p;
    try {
      p = new ProcessBuilder("redis-server", "--port", Integer.toString(port), "--bind",
          "127.0.0.1", "--save", "", "--appendonly", "no", "--dir", dir.toString())
          .redirectErrorStream(true).redirectOutput(Files.createTempFile(dir, "redis", ".log")
              .toFile()).start();
    } catch (IOException e) {
      String need = "these tests need redis-server 7+ on the PATH (Debian/Ubuntu: apt-get "
          + "install redis-server)";
      // in CI (.ci/run installs it) a missing server fails the build; elsewhere it skips
      if (!"true".equals(System.getenv("CI"))) {
        org.junit.jupiter.api.Assumptions.abort(need + "; skipped");
      }
      throw new IOException(need + ": " + e.getMessage(), e);
    }
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
    while (System.nanoTime() < deadline) {
      try (Socket s = new Socket("127.0.0.1", port)) {
        return new RedisServer(p, port);
      } catch (IOException notYet) {
        if (!p.isAlive()) {
          throw new IOException("redis-server exited with " + p.exitValue());
        }
        Thread.sleep(20);
      }
    }
    p.destroyForcibly();
    throw new IOException("redis-server did not listen on " + port + " within 20 s");
  }

  public int port() {
    return port;
  }

  public String address() {
    return "redis://127.0.0.1:" + port;
  }

  @Override
  public void close() throws InterruptedException {
    process.destroy();
    if (!process.waitFor(10, TimeUnit.SECONDS)) {
      process.destroyForcibly().waitFor();
    }
  }
}
