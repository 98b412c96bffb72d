package dev.idem.redis;

import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.exceptions.JedisException;

/**
 * A real redis-server for a test, on a free loopback port, without persistence unless asked;
 * stopped by {@link #close}. {@link #restart} crashes it and starts it again on the same port and
 * data directory, as a server restarted by its supervisor. Fails with what to install when there is
 * no redis-server.
 */
public final class RedisServer implements AutoCloseable {

  /** The settings of a server that keeps nothing across a restart. */
  public static final List<String> NO_PERSISTENCE = List.of("--save", "", "--appendonly", "no");

  /**
   * The settings of a server that keeps every acknowledged write across a crash: the AOF is written
   * before each reply, and fsynced at once so that the test does not depend on timing.
   */
  public static final List<String> AOF =
      List.of("--save", "", "--appendonly", "yes", "--appendfsync", "always");

  private final Path dir;
  private final int port;
  private final List<String> settings;
  private Process process;

  private RedisServer(Path dir, int port, List<String> settings) {
    this.dir = dir;
    this.port = port;
    this.settings = settings;
  }

  /** A server without persistence. */
  public static RedisServer start(Path dir) throws IOException, InterruptedException {
    return start(dir, NO_PERSISTENCE);
  }

  /** A server with {@code settings} ({@code redis-server} arguments, e.g. {@link #AOF}). */
  public static RedisServer start(Path dir, List<String> settings)
      throws IOException, InterruptedException {
    int port;
    try (ServerSocket s = new ServerSocket(0)) {
      port = s.getLocalPort();
    }
    // its own data directory, so that two servers of one test do not share files
    RedisServer server = new RedisServer(Files.createTempDirectory(dir, "redis-"), port, settings);
    server.launch();
    return server;
  }

  private void launch() throws IOException, InterruptedException {
    List<String> command =
        new ArrayList<>(
            List.of(
                "redis-server",
                "--port",
                Integer.toString(port),
                "--bind",
                "127.0.0.1",
                "--dir",
                dir.toString()));
    command.addAll(settings);
    Process p;
    try {
      p =
          new ProcessBuilder(command)
              .redirectErrorStream(true)
              .redirectOutput(ProcessBuilder.Redirect.appendTo(dir.resolve("redis.log").toFile()))
              .start();
    } catch (IOException e) {
      String need =
          "these tests need redis-server 7+ on the PATH (Debian/Ubuntu: apt-get "
              + "install redis-server)";
      // in CI (.ci/run installs it) a missing server fails the build; elsewhere it skips
      if (!"true".equals(System.getenv("CI"))) {
        org.junit.jupiter.api.Assumptions.abort(need + "; skipped");
      }
      throw new IOException(need + ": " + e.getMessage(), e);
    }
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
    while (System.nanoTime() < deadline) {
      // PONG, not just a connection: a restarted server listens while it loads its data
      try (Jedis jedis = new Jedis("127.0.0.1", port)) {
        if ("PONG".equals(jedis.ping())) {
          process = p;
          return;
        }
      } catch (JedisException notYet) {
        if (!p.isAlive()) {
          throw new IOException(
              "redis-server exited with " + p.exitValue() + "; see " + dir.resolve("redis.log"));
        }
        Thread.sleep(20);
      }
    }
    p.destroyForcibly();
    throw new IOException("redis-server did not answer on " + port + " within 20 s");
  }

  /**
   * Kills the server (SIGKILL: no goodbye, no final save) and starts it again on the same port and
   * directory with the same settings: it comes back with whatever its persistence kept.
   */
  public void restart() throws IOException, InterruptedException {
    process.destroyForcibly().waitFor();
    launch();
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
