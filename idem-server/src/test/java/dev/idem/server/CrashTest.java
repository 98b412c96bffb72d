package dev.idem.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.Jedis;

/**
 * The server as a process of its own, killed: after SIGKILL it keeps every IDEM commit and every
 * filter snapshot (and loses the marks after the last commit, by contract); after SIGTERM it keeps
 * every filter change too.
 */
class CrashTest {

  @TempDir Path dir;

  private static Jedis client(ServerProcess p) {
    return new Jedis(
        new HostAndPort("127.0.0.1", p.port),
        DefaultJedisClientConfig.builder().timeoutMillis(30_000).build());
  }

  @Test
  void sigkillKeepsWhatWasCommittedAndSnapshotted() throws Exception {
    try (ServerProcess p = new ServerProcess(dir.resolve("state"), dir.resolve("server.log"))) {
      p.start();
      try (Jedis j = client(p)) {
        assertThat(Client.run(j, "IDEM.FIRSTSEEN docs a b")).isEqualTo("[1, 1]");
        assertThat(Client.run(j, "IDEM.COMMIT docs 7")).isEqualTo("OK");
        assertThat(Client.run(j, "IDEM.FIRSTSEEN docs c")).isEqualTo("[1]");
        assertThat(Client.run(j, "BF.MADD urls u1 u2")).isEqualTo("[1, 1]");
        assertThat(Client.run(j, "CF.ADD cf x")).isEqualTo("1");
        // a snapshot is written within a second of a change: wait for INFO to say so
        long until = System.currentTimeMillis() + 30_000;
        while (!Client.run(j, "INFO persistence").contains("rdb_changes_since_last_save:0")
            && System.currentTimeMillis() < until) {
          Thread.sleep(50);
        }
      }
      p.kill();
      p.start();
      try (Jedis j = client(p)) {
        assertThat(Client.run(j, "IDEM.LASTTOKEN docs")).isEqualTo("7");
        assertThat(Client.run(j, "IDEM.CONTAINS docs a b c")).isEqualTo("[1, 1, 0]");
        assertThat(Client.run(j, "BF.MEXISTS urls u1 u2 u3")).isEqualTo("[1, 1, 0]");
        assertThat(Client.run(j, "BF.CARD urls")).isEqualTo("2");
        assertThat(Client.run(j, "CF.COUNT cf x")).isEqualTo("1");
        assertThat(Client.run(j, "BF.ADD urls u3")).isEqualTo("1");
      }
      assertThat(p.terminate()).isIn(0, 143); // 128 + SIGTERM, after the shutdown hook
      p.start();
      try (Jedis j = client(p)) {
        assertThat(Client.run(j, "BF.EXISTS urls u3")).as("written on SIGTERM").isEqualTo("1");
        assertThat(Client.run(j, "DBSIZE")).isEqualTo("3");
      }
    }
  }
}
