package dev.idem.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Each limit, over a raw socket, with its Redis-style error; and who may connect. */
class LimitsTest {

  @TempDir Path dir;

  private ServerConfig.Builder config() {
    return ServerConfig.builder(dir.resolve("state"))
        .port(0)
        .limits(3, 8, 100, 400, 4, 1 << 20)
        .filterMemory(1 << 20);
  }

  /** Sends {@code wire} and reads until the server closes, or until {@code until} appears. */
  private static String exchange(Socket s, String wire, String until) throws IOException {
    s.setSoTimeout(20_000);
    OutputStream out = s.getOutputStream();
    out.write(wire.getBytes(StandardCharsets.UTF_8));
    out.flush();
    InputStream in = s.getInputStream();
    ByteArrayOutputStream got = new ByteArrayOutputStream();
    byte[] buf = new byte[8192];
    while (until == null || !got.toString(StandardCharsets.UTF_8).contains(until)) {
      int n = in.read(buf);
      if (n < 0) {
        break;
      }
      got.write(buf, 0, n);
    }
    return got.toString(StandardCharsets.UTF_8);
  }

  @Test
  void requestsPastTheLimitsGetRedisErrorsAndTheConnectionCloses() throws Exception {
    try (IdemServer server = IdemServer.start(config().build())) {
      try (Socket s = new Socket("127.0.0.1", server.port())) {
        assertThat(exchange(s, "*1\r\n$200\r\n", null))
            .startsWith("-ERR Protocol error: invalid bulk length (200 bytes; the limit is 100)");
      }
      try (Socket s = new Socket("127.0.0.1", server.port())) {
        assertThat(exchange(s, "*9\r\n", null))
            .startsWith("-ERR Protocol error: invalid multibulk length (9 arguments");
      }
      try (Socket s = new Socket("127.0.0.1", server.port())) {
        String big = "x".repeat(90);
        String wire = "*6\r\n" + ("$90\r\n" + big + "\r\n").repeat(6);
        assertThat(exchange(s, wire, null))
            .startsWith("-ERR Protocol error: request larger than 400 bytes");
      }
      try (Socket s = new Socket("127.0.0.1", server.port())) {
        assertThat(exchange(s, "*1\r\n$4\r\nPING\r\n*x\r\n", null))
            .isEqualTo("+PONG\r\n-ERR Protocol error: invalid multibulk length\r\n");
      }
    }
  }

  @Test
  void aPipelineDeeperThanTheLimitGetsErrorsPastIt() throws Exception {
    try (IdemServer server = IdemServer.start(config().build());
        Socket s = new Socket("127.0.0.1", server.port())) {
      // ten commands in one write: four run, the others are refused until replies are read
      String reply = exchange(s, "PING\r\n".repeat(10), "read them before sending more\r\n");
      assertThat(reply).startsWith("+PONG\r\n".repeat(4) + "-ERR max pipeline depth reached");
      assertThat(exchange(s, "PING\r\n", "+PONG\r\n")).endsWith("+PONG\r\n");
    }
  }

  @Test
  void connectionsPastTheLimitAreRefused() throws Exception {
    try (IdemServer server = IdemServer.start(config().build());
        Socket a = new Socket("127.0.0.1", server.port());
        Socket b = new Socket("127.0.0.1", server.port());
        Socket c = new Socket("127.0.0.1", server.port())) {
      for (Socket s : new Socket[] {a, b, c}) {
        assertThat(exchange(s, "PING\r\n", "\r\n")).isEqualTo("+PONG\r\n");
      }
      try (Socket d = new Socket("127.0.0.1", server.port())) {
        assertThat(exchange(d, "", null)).isEqualTo("-ERR max number of clients reached\r\n");
      }
    }
  }

  @Test
  void aFilterPastTheMemoryLimitIsRefused() throws Exception {
    try (IdemServer server = IdemServer.start(config().build());
        Socket s = new Socket("127.0.0.1", server.port())) {
      assertThat(exchange(s, "BF.RESERVE big 0.001 100000000\r\n", "\r\n"))
          .isEqualTo("-ERR Insufficient memory to create filter\r\n");
    }
  }

  @Test
  void aPasswordIsNeededBeforeAnythingElseAndBeyondLoopback() throws Exception {
    assertThatThrownBy(() -> IdemServer.start(config().bind("0.0.0.0").build()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("--requirepass");
    try (IdemServer server = IdemServer.start(config().password("s3cret").build());
        Socket s = new Socket("127.0.0.1", server.port())) {
      assertThat(exchange(s, "BF.ADD k a\r\n", "\r\n"))
          .isEqualTo("-NOAUTH Authentication required.\r\n");
      assertThat(exchange(s, "AUTH wrong\r\n", "\r\n"))
          .isEqualTo("-WRONGPASS invalid username-password pair or user is disabled.\r\n");
      assertThat(exchange(s, "AUTH s3cret\r\n", "\r\n")).isEqualTo("+OK\r\n");
      assertThat(exchange(s, "BF.ADD k a\r\n", "\r\n")).isEqualTo(":1\r\n");
    }
    // before AUTH, requests are held to Redis's small limits
    try (IdemServer server = IdemServer.start(config().password("s3cret").build());
        Socket s = new Socket("127.0.0.1", server.port())) {
      assertThat(exchange(s, "*11\r\n", null))
          .startsWith("-ERR Protocol error: invalid multibulk length (11 arguments");
    }
  }
}
