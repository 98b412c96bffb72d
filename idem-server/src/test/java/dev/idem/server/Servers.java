package dev.idem.server;

import java.io.IOException;
import java.nio.file.Path;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.RedisProtocol;

/** In-process servers and clients for the tests. */
final class Servers {
  private Servers() {}

  static IdemServer start(Path state) throws IOException {
    return IdemServer.start(ServerConfig.builder(state).port(0).filterMemory(256L << 20).build());
  }

  static IdemServer start(ServerConfig config) throws IOException {
    return IdemServer.start(config);
  }

  static Jedis resp2(IdemServer s) {
    return new Jedis(
        new HostAndPort("127.0.0.1", s.port()),
        DefaultJedisClientConfig.builder().timeoutMillis(30_000).build());
  }

  static Jedis resp3(IdemServer s) {
    return new Jedis(
        new HostAndPort("127.0.0.1", s.port()),
        DefaultJedisClientConfig.builder()
            .timeoutMillis(30_000)
            .protocol(RedisProtocol.RESP3)
            .build());
  }
}
