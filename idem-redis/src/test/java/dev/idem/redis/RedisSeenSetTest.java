package dev.idem.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idem.engine.store.SharedSeenSet;
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

/** The shared seen-set against a real redis-server. */
class RedisSeenSetTest {

  @TempDir Path dir;

  private static byte[] tag(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  @Test
  void markingTellsNewOwnAndOthersApart() throws Exception {
    try (RedisServer redis = RedisServer.start(dir);
        SharedSeenSet a = RedisSeenSet.opener(redis.address()).open();
        SharedSeenSet b = RedisSeenSet.opener(redis.address()).open()) {
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
        done.add(pool.submit(() -> {
          SplittableRandom random = new SplittableRandom(worker);
          try (SharedSeenSet set = RedisSeenSet.opener(redis.address()).open()) {
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
                  newTo.computeIfAbsent(fps[2 * i], k -> new AtomicInteger()).incrementAndGet();
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
        SharedSeenSet set = RedisSeenSet.opener(redis.address() + "/0?ttl=300ms").open()) {
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
    }
    assertThatThrownBy(() -> RedisSeenSet.opener("redis://h/0?ttl=soon"))
        .hasMessageContaining("ttl must be a positive duration");
  }

  @Test
  void aRedisThatGoesAwayIsRetriedThenReportedClearly() throws Exception {
    RedisServer redis = RedisServer.start(dir);
    SharedSeenSet set = RedisSeenSet.opener(redis.address()).open();
    redis.close();
    assertThatThrownBy(() -> set.markAll(new long[] {1, 1}, 1, new byte[][] {tag("x")},
        new byte[1][])).hasMessageContaining("unreachable after 6 attempts")
        .hasMessageContaining("rerun the same command");
    set.close();
    assertThatThrownBy(() -> RedisSeenSet.opener("redis://127.0.0.1:1/zero"))
        .hasMessageContaining("must be a number");
    assertThatThrownBy(() -> RedisSeenSet.opener("http://x")).hasMessageContaining("redis://");
  }
}
