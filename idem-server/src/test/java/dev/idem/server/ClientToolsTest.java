package dev.idem.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * redis-cli and redis-benchmark, Redis's own tools, against the server: redis-cli runs RedisBloom's
 * documented examples and prints RedisBloom's answers; redis-benchmark, pipelined over 50
 * connections, completes without an error. Both come with redis-server (CI installs it); without
 * them the test is skipped, saying so.
 */
class ClientToolsTest {

  @TempDir Path dir;

  private static boolean onPath(String exe) {
    for (String d : System.getenv().getOrDefault("PATH", "").split(File.pathSeparator)) {
      if (!d.isEmpty() && Files.isExecutable(Path.of(d, exe))) {
        return true;
      }
    }
    return false;
  }

  private static String run(List<String> cmd) throws Exception {
    Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(p.waitFor(5, TimeUnit.MINUTES)).isTrue();
    assertThat(p.exitValue()).as(String.join(" ", cmd) + "\n" + out).isZero();
    return out;
  }

  private static String cli(IdemServer s, String line) throws Exception {
    List<String> cmd = new ArrayList<>(List.of("redis-cli", "-p", Integer.toString(s.port())));
    cmd.addAll(List.of(line.split(" ")));
    return run(cmd).strip();
  }

  @Test
  void redisCliGetsRedisBloomsAnswers() throws Exception {
    assumeTrue(onPath("redis-cli"), "skipped: redis-cli is not installed (apt-get install redis)");
    try (IdemServer s = Servers.start(dir.resolve("state"))) {
      assertThat(cli(s, "BF.RESERVE bf 0.01 1000")).isEqualTo("OK");
      assertThat(cli(s, "BF.RESERVE bf 0.01 1000")).isEqualTo("ERR item exists");
      assertThat(cli(s, "BF.ADD bf item1")).isEqualTo("1");
      assertThat(cli(s, "BF.ADD bf item1")).isEqualTo("0");
      assertThat(cli(s, "BF.MADD bf2 item1 item2 item2")).isEqualTo("1\n1\n0");
      assertThat(cli(s, "BF.INFO bf2 CAPACITY")).isEqualTo("100");
      assertThat(cli(s, "CF.INSERT cf ITEMS item1 item2 item2")).isEqualTo("1\n1\n1");
      assertThat(cli(s, "CF.COUNT cf item2")).isEqualTo("2");
      assertThat(cli(s, "CF.DEL cf item1")).isEqualTo("1");
      assertThat(cli(s, "CF.DEL cf item1")).isEqualTo("0");
      assertThat(cli(s, "IDEM.FIRSTSEEN docs a b a")).isEqualTo("1\n1\n0");
      assertThat(cli(s, "IDEM.COMMIT docs 1024")).isEqualTo("OK");
      assertThat(cli(s, "IDEM.LASTTOKEN docs")).isEqualTo("1024");
      assertThat(cli(s, "-3 BF.EXISTS bf item1")).isEqualTo("(true)");
      assertThat(cli(s, "-3 CF.INFO cf")).contains("Number of items inserted");
      assertThat(cli(s, "DBSIZE")).isEqualTo("4");
    }
  }

  @Test
  void redisBenchmarkPipelinedOverFiftyConnectionsCompletesWithoutErrors() throws Exception {
    assumeTrue(
        onPath("redis-benchmark"),
        "skipped: redis-benchmark is not installed (apt-get install redis-tools)");
    try (IdemServer s = Servers.start(dir.resolve("state"))) {
      String port = Integer.toString(s.port());
      String ping =
          run(
              List.of(
                  "redis-benchmark",
                  "-p",
                  port,
                  "-c",
                  "50",
                  "-n",
                  "20000",
                  "-P",
                  "16",
                  "-q",
                  "-t",
                  "ping"));
      assertThat(ping).contains("PING_INLINE").contains("PING_MBULK").doesNotContain("ERR");
      String add =
          run(
              List.of(
                  "redis-benchmark",
                  "-p",
                  port,
                  "-c",
                  "50",
                  "-n",
                  "20000",
                  "-P",
                  "16",
                  "-q",
                  "-r",
                  "100000",
                  "BF.ADD",
                  "bench",
                  "__rand_int__"));
      assertThat(add).contains("BF.ADD").doesNotContain("ERR");
      String seen =
          run(
              List.of(
                  "redis-benchmark",
                  "-p",
                  port,
                  "-c",
                  "50",
                  "-n",
                  "20000",
                  "-P",
                  "16",
                  "-q",
                  "-r",
                  "100000",
                  "IDEM.FIRSTSEEN",
                  "bench-ids",
                  "__rand_int__"));
      assertThat(seen).contains("IDEM.FIRSTSEEN").doesNotContain("ERR");
      assertThat(cli(s, "BF.CARD bench")).matches("[1-9][0-9]*");
    }
  }
}
