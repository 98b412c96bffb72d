package dev.idem.server;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Objects;

/**
 * How {@link IdemServer} runs: where its state is, where it listens, who may talk to it and how
 * much one client may ask of it.
 *
 * @param state the state directory (created when missing; one server at a time)
 * @param bind the address to listen on: loopback unless a password is set
 * @param port the TCP port (0: any free one)
 * @param password the password of {@code AUTH}, or {@code null} for none
 * @param maxConnections clients connected at once
 * @param maxArguments arguments of one request
 * @param maxBulk bytes of one argument
 * @param maxRequest bytes of one request, all arguments together
 * @param maxPipeline commands of one connection whose replies the client has not read yet
 * @param maxOutput bytes of replies waiting for one client that reads too slowly
 * @param maxFilterMemory bytes all BF and CF filters together may take
 * @param saveEvery how often changed filters are snapshotted and token-less IDEM key spaces
 *     committed
 * @param idemCache the RocksDB block cache of each IDEM key space
 * @param metricsPort the Prometheus endpoint's port, or -1 for none
 */
public record ServerConfig(
    Path state,
    String bind,
    int port,
    String password,
    int maxConnections,
    int maxArguments,
    int maxBulk,
    long maxRequest,
    int maxPipeline,
    long maxOutput,
    long maxFilterMemory,
    Duration saveEvery,
    long idemCache,
    int metricsPort) {

  public ServerConfig {
    Objects.requireNonNull(state, "state");
    Objects.requireNonNull(bind, "bind");
    Objects.requireNonNull(saveEvery, "saveEvery");
  }

  /** A builder for a server over {@code state}, at the defaults: loopback, port 6379. */
  public static Builder builder(Path state) {
    return new Builder(state);
  }

  /**
   * Builds a {@link ServerConfig}; each setter checks its value. The defaults are those of {@code
   * idem serve}: loopback, port 6379, no password, 10,000 clients, 1 Mi arguments of 64 MiB at most
   * each (256 MiB a request), 100,000 pipelined commands, 64 MiB of unread replies a client, 8 GiB
   * of filters, a snapshot every second, a 16 MiB cache per IDEM key space, no metrics.
   */
  public static final class Builder {
    private final Path state;
    private String bind = "127.0.0.1";
    private int port = 6379;
    private String password;
    private int maxConnections = 10_000;
    private int maxArguments = 1 << 20;
    private int maxBulk = 64 << 20;
    private long maxRequest = 256L << 20;
    private int maxPipeline = 100_000;
    private long maxOutput = 64L << 20;
    private long maxFilterMemory = 8L << 30;
    private Duration saveEvery = Duration.ofSeconds(1);
    private long idemCache = 16L << 20;
    private int metricsPort = -1;

    private Builder(Path state) {
      this.state = Objects.requireNonNull(state, "state");
    }

    /** The address to listen on (default: loopback). */
    public Builder bind(String address) {
      this.bind = Objects.requireNonNull(address, "bind");
      return this;
    }

    /** The TCP port, 0 for any free one (default 6379). */
    public Builder port(int port) {
      this.port = checkPort(port, 0, "port");
      return this;
    }

    /** The password of {@code AUTH}, or {@code null} (the default) for none. */
    public Builder password(String password) {
      this.password = password;
      return this;
    }

    /**
     * How much one client may ask of the server: clients at once, arguments of a request, bytes of
     * an argument and of a request, unread replies in commands and in bytes; each at least 1.
     */
    public Builder limits(
        int connections, int arguments, int bulk, long request, int pipeline, long output) {
      for (long limit : new long[] {connections, arguments, bulk, request, pipeline, output}) {
        if (limit < 1) {
          throw new IllegalArgumentException("every limit must be at least 1, got " + limit);
        }
      }
      this.maxConnections = connections;
      this.maxArguments = arguments;
      this.maxBulk = bulk;
      this.maxRequest = request;
      this.maxPipeline = pipeline;
      this.maxOutput = output;
      return this;
    }

    /** The bytes all BF and CF filters together may take, positive. */
    public Builder filterMemory(long bytes) {
      this.maxFilterMemory = checkPositive(bytes, "the filters' memory");
      return this;
    }

    /** How often changed filters are snapshotted and token-less IDEM key spaces committed. */
    public Builder saveEvery(Duration every) {
      Objects.requireNonNull(every, "saveEvery");
      checkPositive(every.toMillis(), "the time between snapshots, in milliseconds,");
      this.saveEvery = every;
      return this;
    }

    /** The RocksDB block cache of each IDEM key space, positive. */
    public Builder idemCache(long bytes) {
      this.idemCache = checkPositive(bytes, "the IDEM key spaces' cache");
      return this;
    }

    /** The Prometheus endpoint's port, or -1 (the default) for none. */
    public Builder metricsPort(int port) {
      this.metricsPort = checkPort(port, -1, "metrics port");
      return this;
    }

    public ServerConfig build() {
      return new ServerConfig(
          state,
          bind,
          port,
          password,
          maxConnections,
          maxArguments,
          maxBulk,
          maxRequest,
          maxPipeline,
          maxOutput,
          maxFilterMemory,
          saveEvery,
          idemCache,
          metricsPort);
    }

    private static int checkPort(int port, int least, String what) {
      if (port < least || port > 65_535) {
        throw new IllegalArgumentException(
            "the " + what + " must be " + least + " to 65535, got " + port);
      }
      return port;
    }

    private static long checkPositive(long value, String what) {
      if (value < 1) {
        throw new IllegalArgumentException(what + " must be positive, got " + value);
      }
      return value;
    }
  }
}
