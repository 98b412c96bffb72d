package dev.idem.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idem.core.shared.SharedSeenSet;
import dev.idem.core.shared.SharedSetLostException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import redis.clients.jedis.Jedis;

/** The shared seen-set against a real redis-server. */
class RedisSeenSetTest {

  @TempDir Path dir;

  private static byte[] tag(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  /** What opening a set said. */
  private static final class Heard implements SharedSeenSet.Listener {
    final List<String> warnings = new ArrayList<>();
    final List<String> notes = new ArrayList<>();

    @Override
    public void warning(String message) {
      warnings.add(message);
    }

    @Override
    public void note(String message) {
      notes.add(message);
    }
  }

  private static SharedSeenSet open(String address, String worker) throws IOException {
    return open(address, worker, SharedSeenSet.Start.NEW, new Heard());
  }

  private static SharedSeenSet open(
      String address, String worker, SharedSeenSet.Start start, SharedSeenSet.Listener listener)
      throws IOException {
    return RedisSeenSet.opener(address).open(worker, start, listener);
  }

  /** Marks {@code n} keys from {@code first} on; returns how many were new. */
  private static int mark(SharedSeenSet set, long first, int n) throws IOException {
    long[] fps = new long[2 * n];
    byte[][] tags = new byte[n][];
    for (int i = 0; i < n; i++) {
      fps[2 * i] = first + i;
      fps[2 * i + 1] = 7;
      tags[i] = tag("t" + (first + i));
    }
    byte[][] previous = new byte[n][];
    set.markAll(fps, n, tags, previous);
    return (int) java.util.Arrays.stream(previous).filter(java.util.Objects::isNull).count();
  }

  @Test
  void markingTellsNewOwnAndOthersApart() throws Exception {
    try (RedisServer redis = RedisServer.start(dir);
        SharedSeenSet a = open(redis.address(), "a");
        SharedSeenSet b = open(redis.address(), "b")) {
      long[] fps = {1, 2, 3, 4, 1, 2};
      byte[][] previous = new byte[3][];
      a.markAll(fps, 3, new byte[][] {tag("a/1"), tag("a/2"), tag("a/1-again")}, previous);
      // key (1,2) is new; (3,4) new; (1,2) again in the same call sees the first tag
      assertThat(previous[0]).isNull();
      assertThat(previous[1]).isNull();
      assertThat(previous[2]).isEqualTo(tag("a/1"));
      // marking again with the same tag answers "mine" (a retry, or a resumed worker)
      a.markAll(fps, 1, new byte[][] {tag("a/1")}, previous);
      assertThat(previous[0]).isEqualTo(tag("a/1"));
      b.markAll(new long[] {3, 4}, 1, new byte[][] {tag("b/7")}, previous);
      assertThat(previous[0]).isEqualTo(tag("a/2"));
    }
  }

  @Test
  void ofManyConcurrentWorkersExactlyOneIsToldAKeyIsNew() throws Exception {
    int workers = 4;
    int keys = 20_000;
    ConcurrentHashMap<Long, AtomicInteger> newTo = new ConcurrentHashMap<>();
    try (RedisServer redis = RedisServer.start(dir)) {
      ExecutorService pool = Executors.newFixedThreadPool(workers);
      List<Future<?>> done = new ArrayList<>();
      for (int w = 0; w < workers; w++) {
        int worker = w;
        done.add(
            pool.submit(
                () -> {
                  SplittableRandom random = new SplittableRandom(worker);
                  try (SharedSeenSet set = open(redis.address(), "w" + worker)) {
                    for (int batch = 0; batch < 20; batch++) {
                      int n = 1000;
                      long[] fps = new long[2 * n];
                      byte[][] tags = new byte[n][];
                      byte[][] previous = new byte[n][];
                      for (int i = 0; i < n; i++) {
                        fps[2 * i] = random.nextInt(keys);
                        fps[2 * i + 1] = 42;
                        tags[i] = tag(worker + "/" + batch + ":" + i);
                      }
                      set.markAll(fps, n, tags, previous);
                      for (int i = 0; i < n; i++) {
                        if (previous[i] == null) {
                          newTo
                              .computeIfAbsent(fps[2 * i], k -> new AtomicInteger())
                              .incrementAndGet();
                        }
                      }
                    }
                  }
                  return null;
                }));
      }
      for (Future<?> f : done) {
        f.get();
      }
      pool.shutdown();
    }
    assertThat(newTo).isNotEmpty();
    assertThat(newTo.values()).allSatisfy(c -> assertThat(c.get()).isEqualTo(1));
  }

  @Test
  void withATtlAKeyIsNewAgainOnceItsMarkExpired() throws Exception {
    try (RedisServer redis = RedisServer.start(dir);
        SharedSeenSet set = open(redis.address() + "/0?ttl=300ms", "w");
        Jedis admin = new Jedis("127.0.0.1", redis.port())) {
      byte[][] previous = new byte[1][];
      long[] fp = {5, 6};
      set.markAll(fp, 1, new byte[][] {tag("w/1")}, previous);
      assertThat(previous[0]).isNull();
      set.markAll(fp, 1, new byte[][] {tag("w/2")}, previous);
      assertThat(previous[0]).as("within the ttl: seen").isEqualTo(tag("w/1"));
      long deadline = System.nanoTime() + 5_000_000_000L;
      do {
        Thread.sleep(100);
        set.markAll(fp, 1, new byte[][] {tag("w/3")}, previous);
      } while (previous[0] != null && System.nanoTime() < deadline);
      assertThat(previous[0]).as("after the ttl: new again").isNull();
      assertThat(admin.ttl("idem:marker:w")).as("the marker does not expire").isEqualTo(-1);
    }
    assertThatThrownBy(() -> RedisSeenSet.opener("redis://h/0?ttl=soon"))
        .hasMessageContaining("ttl must be a positive duration");
  }

  @Test
  void aRedisThatGoesAwayIsRetriedThenReportedClearly() throws Exception {
    RedisServer redis = RedisServer.start(dir);
    SharedSeenSet set = open(redis.address(), "w");
    redis.close();
    assertThatThrownBy(
            () -> set.markAll(new long[] {1, 1}, 1, new byte[][] {tag("x")}, new byte[1][]))
        .hasMessageContaining("unreachable after 6 attempts")
        .hasMessageContaining("rerun the same command");
    set.close();
    assertThatThrownBy(() -> RedisSeenSet.opener("redis://127.0.0.1:1/zero"))
        .hasMessageContaining("must be a number");
    assertThatThrownBy(() -> RedisSeenSet.opener("http://x")).hasMessageContaining("redis://");
  }

  @Test
  void aRestartWithoutPersistenceStopsTheWorkerAtTheReconnectBeforeItMarksAgain() throws Exception {
    try (RedisServer redis = RedisServer.start(dir);
        SharedSeenSet set = open(redis.address(), "w")) {
      assertThat(mark(set, 0, 100)).isEqualTo(100);
      redis.restart();
      assertThatThrownBy(() -> mark(set, 0, 100))
          .isInstanceOf(SharedSetLostException.class)
          .hasMessageContaining("127.0.0.1:" + redis.port())
          .hasMessageContaining("lost its data")
          .hasMessageContaining(
              "marker this job wrote there when it started (key " + "idem:marker:w) is gone")
          .hasMessageContaining("restarted without persistence")
          .hasMessageContaining("appendonly yes");
      try (Jedis admin = new Jedis("127.0.0.1", redis.port())) {
        assertThat(admin.dbSize()).as("nothing marked on the emptied server").isZero();
      }
    }
  }

  @Test
  void aFlushBetweenBatchesIsCaughtInTheNextBatchsOwnReply() throws Exception {
    try (RedisServer redis = RedisServer.start(dir);
        SharedSeenSet set = open(redis.address(), "w");
        Jedis admin = new Jedis("127.0.0.1", redis.port())) {
      assertThat(mark(set, 0, 100)).isEqualTo(100);
      long commands = commandsProcessed(admin);
      admin.flushAll();
      assertThatThrownBy(() -> mark(set, 0, 100))
          .isInstanceOf(SharedSetLostException.class)
          .hasMessageContaining("is gone");
      // the flush, the batch's 100 marks and its marker, then this INFO: no extra round trip
      assertThat(commandsProcessed(admin) - commands).isEqualTo(1 + 100 + 1 + 1);
    }
  }

  private static long commandsProcessed(Jedis admin) {
    return admin
        .info("stats")
        .lines()
        .filter(l -> l.startsWith("total_commands_processed:"))
        .mapToLong(l -> Long.parseLong(l.substring(l.indexOf(':') + 1).strip()))
        .findFirst()
        .orElseThrow();
  }

  @Test
  void aRestartFromAnOlderSnapshotIsCaught() throws Exception {
    try (RedisServer redis = RedisServer.start(dir);
        SharedSeenSet set = open(redis.address(), "w")) {
      mark(set, 0, 100);
      try (Jedis admin = new Jedis("127.0.0.1", redis.port())) {
        admin.save(); // the snapshot a server with RDB save points would have taken
      }
      mark(set, 100, 100);
      redis.restart();
      assertThatThrownBy(() -> mark(set, 100, 100))
          .isInstanceOf(SharedSetLostException.class)
          .hasMessageContaining("went back in time")
          .hasMessageContaining("says batch 1")
          .hasMessageContaining("wrote batch 2")
          .hasMessageContaining("older snapshot");
    }
  }

  @Test
  void aResumedWorkerGoesOnWithItsMarkerAndStopsWithoutIt() throws Exception {
    try (RedisServer redis = RedisServer.start(dir)) {
      try (SharedSeenSet set = open(redis.address(), "w")) {
        mark(set, 0, 100);
      }
      try (SharedSeenSet set =
          open(redis.address(), "w", SharedSeenSet.Start.RESUMED, new Heard())) {
        assertThat(mark(set, 50, 100)).as("keys 100..149 are new").isEqualTo(50);
      }
      redis.restart();
      assertThatThrownBy(() -> open(redis.address(), "w", SharedSeenSet.Start.RESUMED, new Heard()))
          .isInstanceOf(SharedSetLostException.class)
          .hasMessageContaining("when it first started (key idem:marker:w) is gone");
      // a new job (a new --state, or none) on the emptied server cannot know, and starts
      try (SharedSeenSet set = open(redis.address(), "v")) {
        assertThat(mark(set, 0, 10)).isEqualTo(10);
      }
    }
  }

  @Test
  void onlyAWorkerWithoutStateRemovesItsMarkerWhenItCloses() throws Exception {
    try (RedisServer redis = RedisServer.start(dir);
        Jedis admin = new Jedis("127.0.0.1", redis.port())) {
      open(redis.address(), "resumable").close();
      open(redis.address(), "once", SharedSeenSet.Start.WITHOUT_STATE, new Heard()).close();
      assertThat(admin.keys("idem:marker:*")).containsExactly("idem:marker:resumable");
    }
  }

  @Test
  void aServerThatWouldForgetInARestartIsReportedOnceAtStart() throws Exception {
    Heard none = new Heard();
    Heard aof = new Heard();
    Heard rdb = new Heard();
    Heard refused = new Heard();
    try (RedisServer a = RedisServer.start(dir);
        RedisServer b = RedisServer.start(dir, RedisServer.AOF);
        RedisServer c = RedisServer.start(dir, List.of("--save", "3600 1", "--appendonly", "no"));
        RedisServer d =
            RedisServer.start(
                dir,
                List.of("--save", "", "--appendonly", "no", "--rename-command", "CONFIG", ""))) {
      for (var run :
          List.of(
              java.util.Map.entry(a, none),
              java.util.Map.entry(b, aof),
              java.util.Map.entry(c, rdb),
              java.util.Map.entry(d, refused))) {
        try (SharedSeenSet set =
            open(run.getKey().address(), "w", SharedSeenSet.Start.NEW, run.getValue())) {
          mark(set, 0, 10);
        }
      }
    }
    assertThat(none.warnings)
        .singleElement()
        .asString()
        .contains("only in memory")
        .contains("appendonly no")
        .contains("a restart empties it")
        .contains("CONFIG SET appendonly yes");
    assertThat(aof.warnings).isEmpty();
    assertThat(aof.notes).isEmpty();
    assertThat(rdb.warnings)
        .singleElement()
        .asString()
        .contains("only RDB snapshots")
        .contains("save 3600 1")
        .contains("appendonly yes");
    assertThat(refused.warnings).isEmpty();
    assertThat(refused.notes)
        .singleElement()
        .asString()
        .contains("could not check that it keeps its data")
        .contains("refused");
  }
}
