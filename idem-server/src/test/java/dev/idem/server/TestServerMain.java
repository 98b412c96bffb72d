package dev.idem.server;

import java.nio.file.Path;

/**
 * A server in a process of its own, for the tests that kill it: {@code STATE PORT}; prints {@code
 * port N} once it listens, and stops gracefully on SIGTERM (a shutdown hook, as idem serve's).
 */
public final class TestServerMain {

  private TestServerMain() {}

  public static void main(String[] args) throws Exception {
    ServerConfig config =
        ServerConfig.builder(Path.of(args[0]))
            .port(Integer.parseInt(args[1]))
            .filterMemory(256L << 20)
            .build();
    IdemServer server = IdemServer.start(config);
    Runtime.getRuntime().addShutdownHook(new Thread(server::shutdown));
    System.out.println("port " + server.port());
    System.out.flush();
    server.awaitTermination();
  }
}
