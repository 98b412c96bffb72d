package dev.idem.cli;

import dev.idem.core.ByteSize;
import dev.idem.server.IdemServer;
import dev.idem.server.ServerConfig;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code idem serve}: the durable seen-set for workers in any language, over the Redis protocol.
 */
@Command(
    name = "serve",
    footerHeading = "%nExamples:%n",
    footer = {
      "  # serve st/ on port 7379; redis-cli (or any Redis client) talks to it",
      "  idem serve --state st --port 7379 &",
      "  until redis-cli -p 7379 ping >/dev/null 2>&1; do sleep 0.2; done",
      "  redis-cli -p 7379 IDEM.FIRSTSEEN docs doc-1 doc-2 doc-1",
      "  redis-cli -p 7379 IDEM.COMMIT docs 1024",
      "  redis-cli -p 7379 IDEM.LASTTOKEN docs",
      "  redis-cli -p 7379 BF.MADD urls https://example.com/a https://example.com/b",
      "  # stop it: snapshots written, key spaces closed (as kill does)",
      "  redis-cli -p 7379 SHUTDOWN"
    },
    mixinStandardHelpOptions = true,
    versionProvider = IdemCommand.Version.class,
    description = {
      "Serve durable seen-sets over the Redis protocol (RESP2 and RESP3), so workers in any "
          + "language ask \"did I already do this id?\" with redis-py, go-redis, Jedis or "
          + "redis-cli: RedisBloom's BF.* and CF.* commands on idem's filters, and IDEM.* "
          + "exact key spaces with exactly-once commits (IDEM.FIRSTSEEN, IDEM.COMMIT name "
          + "token, IDEM.LASTTOKEN). BF and CF keys are snapshotted when changed, at most every "
          + "--snapshot-every; IDEM marks are durable at IDEM.COMMIT. docs/SERVER.md has the "
          + "command table and the guarantees.",
      ""
    })
final class ServeCommand implements Callable<Integer> {

  @Option(
      names = "--state",
      required = true,
      paramLabel = "DIR",
      description = "The state directory: every key, created when missing; one server at a time.")
  Path state;

  @Option(
      names = "--port",
      paramLabel = "PORT",
      defaultValue = "6379",
      description = "The TCP port (default: ${DEFAULT-VALUE}; 0: any free port, printed).")
  int port;

  @Option(
      names = "--bind",
      paramLabel = "ADDRESS",
      defaultValue = "127.0.0.1",
      description =
          "Where to listen (default: ${DEFAULT-VALUE}, this machine only). Any other address "
              + "needs --requirepass.")
  String bind;

  @Option(
      names = "--requirepass",
      paramLabel = "PASSWORD",
      defaultValue = "${env:IDEM_REQUIREPASS}",
      description =
          "Clients must AUTH with this password (default: the environment variable "
              + "IDEM_REQUIREPASS, which unlike an option is not shown by ps).")
  String password;

  @Option(
      names = "--maxclients",
      paramLabel = "N",
      defaultValue = "10000",
      description = "Connections at once; one more is refused (default: ${DEFAULT-VALUE}).")
  int maxClients;

  @Option(
      names = "--max-bulk",
      paramLabel = "SIZE",
      defaultValue = "64m",
      converter = SizeConverter.class,
      description = "The largest argument of a request (default: ${DEFAULT-VALUE}).")
  long maxBulk;

  @Option(
      names = "--max-request",
      paramLabel = "SIZE",
      defaultValue = "256m",
      converter = SizeConverter.class,
      description = "The largest request, all its arguments together (default: ${DEFAULT-VALUE}).")
  long maxRequest;

  @Option(
      names = "--max-args",
      paramLabel = "N",
      defaultValue = "1048576",
      description = "The most arguments of one request (default: ${DEFAULT-VALUE}).")
  int maxArgs;

  @Option(
      names = "--max-pipeline",
      paramLabel = "N",
      defaultValue = "100000",
      description =
          "Commands of one connection whose replies it has not read yet: past half of it the "
              + "server stops reading from it, past it a command gets an error (default: "
              + "${DEFAULT-VALUE}).")
  int maxPipeline;

  @Option(
      names = "--max-output",
      paramLabel = "SIZE",
      defaultValue = "64m",
      converter = SizeConverter.class,
      description =
          "Replies waiting for a client that does not read them; past it the client is "
              + "disconnected (default: ${DEFAULT-VALUE}).")
  long maxOutput;

  @Option(
      names = "--max-filter-memory",
      paramLabel = "SIZE",
      converter = SizeConverter.class,
      description =
          "Memory all BF and CF filters together may take; a filter past it is refused "
              + "(default: half the JVM heap).")
  Long maxFilterMemory;

  @Option(
      names = "--snapshot-every",
      paramLabel = "DURATION",
      defaultValue = "1s",
      converter = DurationConverter.class,
      description =
          "How often changed BF and CF filters are snapshotted, and IDEM key spaces that no "
              + "client commits with a token are committed (default: ${DEFAULT-VALUE}).")
  Duration snapshotEvery;

  @Option(
      names = "--idem-cache",
      paramLabel = "SIZE",
      defaultValue = "16m",
      converter = SizeConverter.class,
      description = "RocksDB's block cache of each IDEM key space (default: ${DEFAULT-VALUE}).")
  long idemCache;

  @Option(
      names = "--metrics-port",
      paramLabel = "PORT",
      description =
          "Serve the server's counters for Prometheus at http://127.0.0.1:PORT/metrics (0: any "
              + "free port, printed).")
  Integer metricsPort;

  private final Io io;

  ServeCommand(Io io) {
    this.io = io;
  }

  @Override
  public Integer call() throws IOException, InterruptedException {
    if (port < 0 || port > 65535) {
      throw new UserException("--port must be from 0 (any free port) to 65535, got " + port);
    }
    if (metricsPort != null && (metricsPort < 0 || metricsPort > 65535)) {
      throw new UserException(
          "--metrics-port must be from 0 (any free port) to 65535, got " + metricsPort);
    }
    if (maxBulk > Integer.MAX_VALUE - 16) {
      throw new UserException("--max-bulk can be at most 2g, got " + ByteSize.format(maxBulk));
    }
    for (long n : new long[] {maxClients, maxArgs, maxPipeline}) {
      if (n < 1) {
        throw new UserException("--maxclients, --max-args and --max-pipeline must be positive");
      }
    }
    ServerConfig config;
    try {
      config =
          ServerConfig.builder(state)
              .port(port)
              .bind(bind)
              .password(password == null || password.isEmpty() ? null : password)
              .limits(maxClients, maxArgs, (int) maxBulk, maxRequest, maxPipeline, maxOutput)
              .filterMemory(
                  maxFilterMemory != null ? maxFilterMemory : Runtime.getRuntime().maxMemory() / 2)
              .saveEvery(snapshotEvery)
              .idemCache(Math.max(idemCache, 8L << 20))
              .metricsPort(metricsPort == null ? -1 : metricsPort)
              .build();
    } catch (IllegalArgumentException e) {
      throw new UserException(e.getMessage(), e);
    }
    IdemServer server;
    try {
      server = IdemServer.start(config);
    } catch (IllegalArgumentException e) {
      throw new UserException(e.getMessage(), e);
    }
    Thread hook = new Thread(server::shutdown, "idem-serve-stop");
    Runtime.getRuntime().addShutdownHook(hook);
    io.err()
        .println(
            "idem serve: listening on "
                + bind
                + ":"
                + server.port()
                + " (RESP2 and RESP3"
                + (password != null && !password.isEmpty() ? ", AUTH required" : "")
                + "), state "
                + state
                + ", "
                + server.keyCount()
                + " keys"
                + (server.metricsPort() >= 0
                    ? "; metrics at http://127.0.0.1:" + server.metricsPort() + "/metrics"
                    : "")
                + "; SHUTDOWN, Ctrl-C or kill stops it");
    io.err().flush();
    server.awaitTermination();
    try {
      Runtime.getRuntime().removeShutdownHook(hook);
    } catch (IllegalStateException e) {
      // the JVM is exiting already (a signal): the hook is running
    }
    if (server.shutdownFailure() != null) {
      throw new UserException("stopping failed: " + server.shutdownFailure().getMessage());
    }
    io.err().println("idem serve: stopped; " + state + " holds every key");
    return 0;
  }
}
