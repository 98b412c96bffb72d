package dev.idem.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import redis.clients.jedis.Jedis;

/** IDEM.*: exact answers, commits with tokens, the rollback of LASTTOKEN, windows, restarts. */
class IdemCommandsTest {

  @TempDir Path dir;

  @Test
  void firstSeenIsTrueExactlyOncePerIdAcrossCommitsAndRestarts() throws Exception {
    Path state = dir.resolve("state");
    try (IdemServer s = Servers.start(state);
        Jedis j = Servers.resp2(s)) {
      assertThat(Client.run(j, "IDEM.RESERVE docs EXPECTED 100000")).isEqualTo("OK");
      assertThat(Client.run(j, "IDEM.RESERVE docs")).isEqualTo("!ERR item exists");
      assertThat(Client.run(j, "IDEM.FIRSTSEEN docs a b a")).isEqualTo("[1, 1, 0]");
      assertThat(Client.run(j, "IDEM.CONTAINS docs a c")).isEqualTo("[1, 0]");
      assertThat(Client.run(j, "IDEM.MARK docs c d a")).isEqualTo("2");
      assertThat(Client.run(j, "IDEM.COMMIT docs t1")).isEqualTo("OK");
      assertThat(Client.run(j, "IDEM.FIRSTSEEN docs e")).isEqualTo("[1]");
      // a resuming worker asks for the token: what it marked after it is undone
      assertThat(Client.run(j, "IDEM.LASTTOKEN docs")).isEqualTo("t1");
      assertThat(Client.run(j, "IDEM.CONTAINS docs a e")).isEqualTo("[1, 0]");
      assertThat(Client.run(j, "IDEM.FIRSTSEEN docs e f")).isEqualTo("[1, 1]");
      assertThat(Client.run(j, "BF.ADD docs x"))
          .isEqualTo("!WRONGTYPE Operation against a key holding the wrong kind of value");
      assertThat(Client.run(j, "TYPE docs")).isEqualTo("idem-set");
    }
    // a graceful stop drops the marks after a token commit, as a crash does
    try (IdemServer s = Servers.start(state);
        Jedis j = Servers.resp2(s)) {
      assertThat(Client.run(j, "IDEM.CONTAINS docs a b c d e f")).isEqualTo("[1, 1, 1, 1, 0, 0]");
      assertThat(Client.run(j, "IDEM.LASTTOKEN docs")).isEqualTo("t1");
      assertThat(Client.run(j, "IDEM.INFO docs")).contains("Commits, 0").contains("Size, 4");
      assertThat(Client.run(j, "DEL docs")).isEqualTo("1");
      assertThat(Client.run(j, "IDEM.LASTTOKEN docs")).isEqualTo("nil");
      assertThat(Client.run(j, "IDEM.FIRSTSEEN docs a")).isEqualTo("[1]");
    }
  }

  @Test
  void aKeySpaceNoClientCommitsIsCommittedWhenTheServerStops() throws Exception {
    Path state = dir.resolve("state");
    try (IdemServer s = Servers.start(state);
        Jedis j = Servers.resp2(s)) {
      assertThat(Client.run(j, "IDEM.FIRSTSEEN seen a b")).isEqualTo("[1, 1]");
    }
    try (IdemServer s = Servers.start(state);
        Jedis j = Servers.resp2(s)) {
      assertThat(Client.run(j, "IDEM.FIRSTSEEN seen a b c")).isEqualTo("[0, 0, 1]");
    }
  }

  @Test
  void aTtlKeySpaceForgetsAnIdItsDurationAfterItWasFirstSeen() throws Exception {
    Path state = dir.resolve("state");
    try (IdemServer s = Servers.start(state);
        Jedis j = Servers.resp2(s)) {
      assertThat(Client.run(j, "IDEM.RESERVE recent TTL 1500ms")).isEqualTo("OK");
      assertThat(Client.run(j, "IDEM.FIRSTSEEN recent x x")).isEqualTo("[1, 0]");
      assertThat(Client.run(j, "IDEM.COMMIT recent t")).isEqualTo("OK");
    }
    try (IdemServer s = Servers.start(state);
        Jedis j = Servers.resp2(s)) {
      assertThat(Client.run(j, "IDEM.CONTAINS recent x")).isEqualTo("[1]");
      long until = System.currentTimeMillis() + 30_000;
      while (Client.run(j, "IDEM.CONTAINS recent x").equals("[1]")
          && System.currentTimeMillis() < until) {
        Thread.sleep(100);
      }
      assertThat(Client.run(j, "IDEM.FIRSTSEEN recent x")).isEqualTo("[1]");
      assertThat(Client.run(j, "IDEM.RESERVE w WINDOW 1d")).isEqualTo("OK");
      assertThat(Client.run(j, "IDEM.INFO w")).contains("Kind, window, Window ms, 86400000");
      assertThat(Client.run(j, "IDEM.RESERVE bad TTL soon"))
          .startsWith("!ERR invalid duration 'soon'");
      assertThat(Client.run(j, "IDEM.RESERVE bad EXPECTED"))
          .isEqualTo("!ERR syntax error: EXPECTED needs a value");
    }
  }

  @Test
  void theHandshakesOfClientsAreAnswered() throws Exception {
    try (IdemServer s = Servers.start(dir.resolve("state"));
        Jedis j = Servers.resp3(s)) {
      assertThat(Client.run(j, "PING")).isEqualTo("PONG");
      assertThat(Client.run(j, "PING hi")).isEqualTo("hi");
      assertThat(Client.run(j, "SELECT 0")).isEqualTo("OK");
      assertThat(Client.run(j, "SELECT 1")).isEqualTo("!ERR DB index is out of range");
      assertThat(Client.run(j, "CLIENT SETNAME w1")).isEqualTo("OK");
      assertThat(Client.run(j, "CLIENT GETNAME")).isEqualTo("w1");
      assertThat(Client.run(j, "COMMAND COUNT")).matches("[1-9][0-9]*");
      assertThat(Client.run(j, "CONFIG GET appendonly")).isEqualTo("{appendonly=no}");
      assertThat(Client.run(j, "INFO server")).contains("redis_version:").contains("idem_version");
      assertThat(Client.run(j, "AUTH x"))
          .startsWith("!ERR AUTH <password> called without any password configured");
      assertThat(Client.run(j, "NOSUCH a b"))
          .isEqualTo("!ERR unknown command 'NOSUCH', with args beginning with: 'a' 'b' ");
    }
  }
}
