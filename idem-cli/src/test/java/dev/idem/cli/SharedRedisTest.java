package dev.idem.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idem.redis.RedisServer;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.io.SequenceInputStream;
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
import redis.clients.jedis.Jedis;

/**
 * Four worker processes dedup overlapping inputs against one real Redis: together they keep every
 * distinct key exactly once, also when one of them is killed with SIGKILL and resumed. And a Redis
 * that forgets (restarted without persistence) stops a job before it repeats a key, a server that
 * would forget is warned about, and one with AOF is restarted harmlessly.
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
    return List.of(
        "dedup",
        "--key",
        "id",
        "--exact-store",
        redis,
        "--state",
        dir.resolve("state-" + w).toString(),
        "-o",
        dir.resolve("out-" + w + ".jsonl").toString(),
        "--checkpoint-every",
        "500",
        "--quiet",
        input.toString());
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
        steady.add(
            ChildProcessTest.start(command(redis.address(), w, in.get(w)).toArray(String[]::new)));
      }
      // worker 3 runs alongside, killed at random moments and resumed until it finishes
      Random random = new Random(8);
      int kills = 0;
      boolean finished = false;
      while (!finished) {
        Process p =
            ChildProcessTest.start(command(redis.address(), 3, in.get(3)).toArray(String[]::new));
        long delay = kills >= 6 ? TimeUnit.MINUTES.toMillis(3) : 200 + random.nextInt(1500);
        if (p.waitFor(delay, TimeUnit.MILLISECONDS)) {
          assertThat(p.exitValue())
              .as(new String(p.getErrorStream().readAllBytes(), StandardCharsets.UTF_8))
              .isZero();
          finished = true;
        } else {
          p.destroyForcibly().waitFor();
          kills++;
        }
      }
      for (Process p : steady) {
        assertThat(p.waitFor(3, TimeUnit.MINUTES)).isTrue();
        assertThat(p.exitValue())
            .as(new String(p.getErrorStream().readAllBytes(), StandardCharsets.UTF_8))
            .isZero();
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

  /**
   * Worker B marks and emits 10,000 keys; worker A reads 4,096 new keys from a pipe, then Redis
   * restarts empty, then A reads B's keys. A must stop before it emits any of them: its next batch
   * would be decided against the emptied set.
   */
  @Test
  void aRedisRestartedEmptyMidJobStopsTheJobBeforeItRepeatsAKey() throws Exception {
    StringBuilder theirs = new StringBuilder();
    for (int i = 0; i < 10_000; i++) {
      theirs.append("{\"id\":\"b").append(i).append("\"}\n");
    }
    StringBuilder mine = new StringBuilder();
    for (int i = 0; i < 2 * 2048; i++) { // two full batches: both reach Redis before the wait
      mine.append("{\"id\":\"a").append(i).append("\"}\n");
    }
    Path b = Files.writeString(dir.resolve("b.jsonl"), theirs);
    int status;
    String message;
    String address;
    try (RedisServer redis = RedisServer.start(dir);
        Jedis admin = new Jedis("127.0.0.1", redis.port())) {
      Cli.Result first =
          Cli.run(
              "dedup",
              "--key",
              "id",
              "--exact-store",
              redis.address(),
              "-o",
              dir.resolve("out-b.jsonl").toString(),
              "--quiet",
              b.toString());
      assertThat(first.status()).as(first.err()).isZero();
      long before = admin.dbSize();
      InputStream stdin =
          new SequenceInputStream(
              new ByteArrayInputStream(mine.toString().getBytes(StandardCharsets.UTF_8)),
              new InputStream() {
                private InputStream rest;

                @Override
                public int read() throws IOException {
                  byte[] one = new byte[1];
                  return read(one, 0, 1) < 0 ? -1 : one[0] & 0xFF;
                }

                @Override
                public int read(byte[] buf, int off, int len) throws IOException {
                  if (rest == null) {
                    awaitMarks(admin, before + 4096);
                    try {
                      redis.restart();
                    } catch (InterruptedException e) {
                      throw new IOException(e);
                    }
                    rest =
                        new ByteArrayInputStream(
                            theirs.toString().getBytes(StandardCharsets.UTF_8));
                  }
                  return rest.read(buf, off, len);
                }
              });
      ByteArrayOutputStream err = new ByteArrayOutputStream();
      status =
          IdemCommand.execute(
              new Io(
                  stdin,
                  new PrintStream(new ByteArrayOutputStream()),
                  new PrintStream(err, true, StandardCharsets.UTF_8)),
              "dedup",
              "--key",
              "id",
              "--exact-store",
              redis.address(),
              "-o",
              dir.resolve("out-a.jsonl").toString(),
              "--quiet",
              "-");
      message = err.toString(StandardCharsets.UTF_8);
      address = redis.address().substring("redis://".length());
    }
    Map<String, Integer> kept = new HashMap<>();
    for (String out : List.of("out-a.jsonl", "out-b.jsonl")) {
      for (String line : Files.readAllLines(dir.resolve(out))) {
        kept.merge(line, 1, Integer::sum);
      }
    }
    assertThat(kept).containsKey("{\"id\":\"b0\"}");
    assertThat(repeated(kept)).as("keys in both outputs").isEmpty();
    assertThat(status).as(message).isEqualTo(1);
    assertThat(message)
        .contains(address)
        .contains("marker")
        .contains("restarted without persistence")
        .contains("appendonly yes")
        .contains("without --state");
  }

  private static List<String> repeated(Map<String, Integer> kept) {
    return kept.entrySet().stream()
        .filter(e -> e.getValue() > 1)
        .map(Map.Entry::getKey)
        .limit(5)
        .toList();
  }

  /** Waits until Redis holds {@code keys} keys: the job has marked what it was given. */
  private static void awaitMarks(Jedis admin, long keys) throws IOException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (admin.dbSize() < keys) {
      if (System.nanoTime() > deadline) {
        throw new IOException("the job did not mark its first " + keys + " keys in 60 s");
      }
      try {
        Thread.sleep(10);
      } catch (InterruptedException e) {
        throw new IOException(e);
      }
    }
  }

  /**
   * A worker stopped after a checkpoint, then Redis restarts empty: the resume must refuse to go
   * on, since every key of its committed output is unmarked now and would be emitted again.
   */
  @Test
  void aJobResumedAfterRedisRestartedEmptyStopsInsteadOfRepeatingKeys() throws Exception {
    Path in = withABadRecordHalfway(DedupInput.generate(200_000, 5L));
    Cli.Result resumed;
    try (RedisServer redis = RedisServer.start(dir)) {
      stopAtTheBadRecord(redis, in);
      redis.restart();
      resumed = Cli.run(resume(redis, in));
    }
    Map<String, Integer> kept = new HashMap<>();
    for (String line : Files.readAllLines(dir.resolve("out-0.jsonl"))) {
      kept.merge(key(line), 1, Integer::sum);
    }
    assertThat(kept).isNotEmpty();
    assertThat(repeated(kept)).as("keys emitted twice").isEmpty();
    assertThat(resumed.status()).as(resumed.err()).isEqualTo(1);
    assertThat(resumed.err())
        .contains("marker")
        .contains("restarted without persistence")
        .contains("appendonly yes")
        .contains("last checkpoint in " + dir.resolve("state-0"))
        .contains("is intact");
  }

  /** The records of {@code data} with a line that is not JSON after the first half. */
  private Path withABadRecordHalfway(DedupInput data) throws IOException {
    List<String> lines =
        new ArrayList<>(new String(data.input, StandardCharsets.UTF_8).lines().toList());
    lines.add(lines.size() / 2, "not json");
    return Files.write(dir.resolve("in.jsonl"), lines);
  }

  /**
   * Runs worker 0 until the bad record stops it (under {@code --on-bad-record fail}, after a
   * checkpoint): a worker that stopped halfway, with marks in Redis and output committed, at a
   * deterministic point (a SIGKILL races a job this fast).
   */
  private void stopAtTheBadRecord(RedisServer redis, Path in) {
    List<String> first = new ArrayList<>(command(redis.address(), 0, in));
    first.addAll(List.of("--on-bad-record", "fail"));
    Cli.Result stopped = Cli.run(first.toArray(String[]::new));
    assertThat(stopped.status()).as(stopped.err()).isEqualTo(1);
    assertThat(stopped.err()).contains("in.jsonl:100001: malformed JSON");
  }

  /** The resume of worker 0, which skips the bad record (the policy is not part of the job). */
  private String[] resume(RedisServer redis, Path in) {
    List<String> again = new ArrayList<>(command(redis.address(), 0, in));
    again.addAll(List.of("--on-bad-record", "skip"));
    return again.toArray(String[]::new);
  }

  @Test
  void aServerThatCannotSurviveARestartIsWarnedAboutAtStart() throws Exception {
    Path in = Files.writeString(dir.resolve("in.jsonl"), "{\"id\":1}\n{\"id\":1}\n");
    try (RedisServer bare = RedisServer.start(dir);
        RedisServer aof = RedisServer.start(dir, RedisServer.AOF)) {
      Cli.Result warned =
          Cli.run(
              "dedup",
              "--key",
              "id",
              "--exact-store",
              bare.address(),
              "-o",
              dir.resolve("bare.jsonl").toString(),
              "--quiet",
              in.toString());
      assertThat(warned.status()).as(warned.err()).isZero();
      assertThat(warned.err())
          .contains("idem dedup: warning: ")
          .contains("127.0.0.1:" + bare.port())
          .contains("appendonly no")
          .contains("a restart empties it");
      Cli.Result quiet =
          Cli.run(
              "dedup",
              "--key",
              "id",
              "--exact-store",
              aof.address(),
              "-o",
              dir.resolve("aof.jsonl").toString(),
              "--quiet",
              in.toString());
      assertThat(quiet.status()).as(quiet.err()).isZero();
      assertThat(quiet.err()).doesNotContain("warning");
    }
  }

  /**
   * With AOF, a Redis that crashes and restarts keeps its marks and this worker's marker: the
   * stopped worker resumes, without a warning, and writes what an uninterrupted run would.
   */
  @Test
  void aJobResumesAfterARestartOfARedisWithAof() throws Exception {
    DedupInput data = DedupInput.generate(200_000, 5L);
    Path in = withABadRecordHalfway(data);
    try (RedisServer redis = RedisServer.start(dir, RedisServer.AOF)) {
      stopAtTheBadRecord(redis, in);
      redis.restart();
      try (Jedis admin = new Jedis("127.0.0.1", redis.port())) {
        assertThat(admin.keys("idem:marker:*")).as("the marker came back with the AOF").hasSize(1);
      }
      Cli.Result resumed = Cli.run(resume(redis, in));
      assertThat(resumed.status()).as(resumed.err()).isZero();
      assertThat(resumed.err()).doesNotContain("warning");
    }
    assertThat(Files.readAllBytes(dir.resolve("out-0.jsonl"))).isEqualTo(data.expected);
  }

  @Test
  void aSharedStoreIsRefusedWithOptionsThatNeedLocalTiers() {
    Cli.Result r =
        Cli.run(
            "dedup",
            "--key",
            "id",
            "--exact-store",
            "redis://127.0.0.1:1",
            "--window",
            "10m",
            "x.jsonl");
    assertThat(r.status()).isEqualTo(2);
    assertThat(r.err()).contains("shared exact store works alone");
    Cli.Result bad = Cli.run("dedup", "--key", "id", "--exact-store", "redis://h:1/x", "x.jsonl");
    assertThat(bad.status()).isEqualTo(2);
    assertThat(bad.err()).contains("must be a number");
  }
}
