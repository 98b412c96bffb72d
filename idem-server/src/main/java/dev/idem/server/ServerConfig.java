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

  /** The defaults, for {@code state}: loopback, port 6379. */
  public static ServerConfig defaults(Path state) {
    return new ServerConfig(
        state,
        "127.0.0.1",
        6379,
        null,
        10_000,
        1 << 20,
        64 << 20,
        256L << 20,
        100_000,
        64L << 20,
        8L << 30,
        Duration.ofSeconds(1),
        16L << 20,
        -1);
  }

  public ServerConfig withPort(int p) {
    return new ServerConfig(
        state,
        bind,
        p,
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

  public ServerConfig withBind(String address) {
    return new ServerConfig(
        state,
        address,
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

  public ServerConfig withPassword(String pass) {
    return new ServerConfig(
        state,
        bind,
        port,
        pass,
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

  public ServerConfig withLimits(
      int connections, int arguments, int bulk, long request, int pipeline, long output) {
    return new ServerConfig(
        state,
        bind,
        port,
        password,
        connections,
        arguments,
        bulk,
        request,
        pipeline,
        output,
        maxFilterMemory,
        saveEvery,
        idemCache,
        metricsPort);
  }

  public ServerConfig withFilterMemory(long bytes) {
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
        bytes,
        saveEvery,
        idemCache,
        metricsPort);
  }

  public ServerConfig withSaveEvery(Duration d) {
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
        d,
        idemCache,
        metricsPort);
  }

  public ServerConfig withIdemCache(long bytes) {
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
        bytes,
        metricsPort);
  }

  public ServerConfig withMetricsPort(int p) {
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
        p);
  }
}
