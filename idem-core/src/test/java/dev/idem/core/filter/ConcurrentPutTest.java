package dev.idem.core.filter;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.SplittableRandom;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** Concurrent puts lose no bits: the result is bit-for-bit the sequential one. */
class ConcurrentPutTest {

  private static final int THREADS = 4;
  private static final int KEYS_PER_THREAD = 200_000;

  @ParameterizedTest
  @EnumSource(
      value = FilterType.class,
      names = {"BLOOM", "BLOCKED", "PARTITIONED"})
  void concurrentPutsEqualSequentialPuts(FilterType type) throws Exception {
    // a small filter, so that threads keep hitting the same words
    AbstractBloomFilter concurrent = (AbstractBloomFilter) Filters.create(type, 20_000, 0.01);
    AbstractBloomFilter sequential = (AbstractBloomFilter) Filters.create(type, 20_000, 0.01);
    long[][] keys = new long[THREADS][2 * KEYS_PER_THREAD];
    SplittableRandom random = new SplittableRandom(99);
    for (long[] k : keys) {
      for (int i = 0; i < k.length; i++) {
        k[i] = random.nextLong();
      }
    }
    ExecutorService pool = Executors.newFixedThreadPool(THREADS);
    try {
      CountDownLatch start = new CountDownLatch(1);
      Future<?>[] done = new Future<?>[THREADS];
      for (int t = 0; t < THREADS; t++) {
        long[] mine = keys[t];
        done[t] =
            pool.submit(
                () -> {
                  start.await();
                  for (int i = 0; i < KEYS_PER_THREAD; i++) {
                    concurrent.put(mine[2 * i], mine[2 * i + 1]);
                  }
                  return null;
                });
      }
      start.countDown();
      for (Future<?> f : done) {
        f.get(2, TimeUnit.MINUTES);
      }
    } finally {
      pool.shutdownNow();
    }
    for (long[] k : keys) {
      for (int i = 0; i < KEYS_PER_THREAD; i++) {
        sequential.put(k[2 * i], k[2 * i + 1]);
      }
    }
    for (long w = 0; w < sequential.bits.wordCount(); w++) {
      assertThat(concurrent.bits.word(w)).as("word %d", w).isEqualTo(sequential.bits.word(w));
    }
    for (long[] k : keys) {
      for (int i = 0; i < KEYS_PER_THREAD; i += 97) {
        assertThat(concurrent.mightContain(k[2 * i], k[2 * i + 1])).isTrue();
      }
    }
  }
}
