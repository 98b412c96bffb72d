package dev.idem.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idem.redis.RedisServer;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Four worker processes dedup overlapping inputs against one real Redis: together they keep
 * every distinct key exactly once, also when one of them is killed with SIGKILL and resumed.
 */
class SharedRedisTest {

  @TempDir Path dir;

  /** Four overlapping inputs: each holds a random 60 % of one generated stream's records. */
  private List<Path> inputs() throws IOException {
    DedupInput data = DedupInput.generate(40_000, 11L);
    List<String> lines = new String(data.input, StandardCharsets.UTF_8).lines().toList();
    List<Path> files = new ArrayList<>();
    Random random = new Random(3);
    for (int w = 0; w < 4; w++) {
      StringBuilder b = new StringBuilder();
      for (String line : lines) {
        if (random.nextDouble() < 0.6) {
          b.append(line).append('\n');
        }
      }
      files.add(Files.writeString(dir.resolve("worker-" + w + ".jsonl"), b));
    }
    return files;
  }

  /** The id's text, its é unescaped: the generator writes it both ways, one key. */
  private static String key(String line) {
    int at = line.indexOf("\"id\":") + 5;
    return line.substring(at, line.indexOf(',', at)).replace("\\u00e9", "\u00e9");
  }

  private List<String> command(String redis, int w, Path input) {
    return List.of("dedup", "--key", "id", "--exact-store", redis, "--state",
        dir.resolve("state-" + w).toString(), "-o", dir.resolve("out-" + w + ".jsonl").toString(),
        "--checkpoint-every", "500", "--quiet", input.toString());
  }

  @Test
  void fourWorkersOneKilledAndResumedKeepEveryKeyExactlyOnce() throws Exception {
    List<Path> in = inputs();
    Set<String> allKeys = new HashSet<>();
    for (Path p : in) {
      Files.readAllLines(p).forEach(l -> allKeys.add(key(l)));
    }
    try (RedisServer redis = RedisServer.start(dir)) {
      List<Process> steady = new ArrayList<>();
      for (int w = 0; w < 3; w++) {
        steady.add(ChildProcessTest.start(command(redis.address(), w, in.get(w))
            .toArray(String[]::new)));
      }
      // worker 3 runs alongside, killed at random moments and resumed until it finishes
      Random random = new Random(8);
      int kills = 0;
      boolean finished = false;
      while (!finished) {
        Process p = ChildProcessTest.start(command(redis.address(), 3, in.get(3))
            .toArray(String[]::new));
        long delay = kills >= 6 ? TimeUnit.MINUTES.toMillis(3) : 200 + random.nextInt(1500);
        if (p.waitFor(delay, TimeUnit.MILLISECONDS)) {
          assertThat(p.exitValue()).as(new String(p.getErrorStream().readAllBytes(),
              StandardCharsets.UTF_8)).isZero();
          finished = true;
        } else {
          p.destroyForcibly().waitFor();
          kills++;
        }
      }
      for (Process p : steady) {
        assertThat(p.waitFor(3, TimeUnit.MINUTES)).isTrue();
        assertThat(p.exitValue()).as(new String(p.getErrorStream().readAllBytes(),
            StandardCharsets.UTF_8)).isZero();
      }
      System.err.printf("shared redis: worker 3 killed %d times%n", kills);
    }
    Map<String, Integer> kept = new HashMap<>();
    for (int w = 0; w < 4; w++) {
      for (String line : Files.readAllLines(dir.resolve("out-" + w + ".jsonl"))) {
        kept.merge(key(line), 1, Integer::sum);
      }
    }
    assertThat(kept.keySet()).isEqualTo(allKeys);
    assertThat(kept.values()).allSatisfy(c -> assertThat(c).isEqualTo(1));
  }

  @Test
  void aSharedStoreIsRefusedWithOptionsThatNeedLocalTiers() {
    Cli.Result r = Cli.run("dedup", "--key", "id", "--exact-store", "redis://127.0.0.1:1",
        "--window", "10m", "x.jsonl");
    assertThat(r.status()).isEqualTo(2);
    assertThat(r.err()).contains("shared exact store works alone");
    Cli.Result bad = Cli.run("dedup", "--key", "id", "--exact-store", "redis://h:1/x",
        "x.jsonl");
    assertThat(bad.status()).isEqualTo(2);
    assertThat(bad.err()).contains("must be a number");
  }
}
