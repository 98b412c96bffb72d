package dev.idem.bench;

import java.io.IOException;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.infra.BenchmarkParams;

/**
 * Every contender, from raw key bytes (hashing included): the numbers a user of each library gets.
 *
 * <p>Inserts are timed as one fill from empty to {@code n} (single shot, a fresh filter per
 * iteration), so every insert is of a new key and the filter's fill level sweeps 0 → n as in a real
 * job; {@link BenchMain} sets operations-per-invocation to {@code n}. Queries run against a filter
 * filled once per trial.
 */
@Fork(1)
public class FilterBenchmark {

  static final double FPP = 0.001;

  /** Keys per query invocation: large enough to hide JMH's per-call cost, small to wrap often. */
  static final int QUERY_BATCH = 1024;

  /**
   * Fresh keys (never inserted) for negative queries and the FPR measurement, whatever n is; also
   * the most positive query keys kept in memory.
   */
  static final int SAMPLE_KEYS = 10_000_000;

  /** Positive keys checked for false negatives after each fill (a cheap sanity check). */
  static final int SANITY_KEYS = 1_000_000;

  /** Keys per JIT warm-up fill: enough for C2 to compile the fill loop before the first timing. */
  static final int JIT_WARMUP_KEYS = 200_000;

  /** The whole key set in one arena, and an empty filter before each timed fill. */
  @State(Scope.Benchmark)
  public static class InsertState {
    @Param({"bloom"})
    public String contender;

    @Param({"1000000"})
    public int n;

    KeyArena keys;
    Contender filter;

    @Setup(Level.Trial)
    public void buildKeys() {
      keys = KeyArena.build(0, 1, n);
      // At n = 100 M a warm-up iteration would be a full minute-long fill; small fills of a
      // throwaway filter of the same class compile the same loop instead.
      int warmKeys = Math.min(n, JIT_WARMUP_KEYS);
      for (int round = 0; round < 5; round++) {
        putAll(Contender.create(contender, warmKeys, FPP), keys, warmKeys);
      }
    }

    @Setup(Level.Iteration)
    public void emptyFilter() {
      if (filter != null) {
        requireNoFalseNegatives(filter, keys, contender);
      }
      filter = null;
      System.gc(); // collect the previous filter now, not during the timed fill
      filter = Contender.create(contender, n, FPP);
    }

    @TearDown(Level.Trial)
    public void handOver() throws IOException {
      requireNoFalseNegatives(filter, keys, contender);
      FilterCache.save(filter, contender, n);
    }
  }

  /**
   * A filter holding keys 0 … n-1. Only a sample of them is kept as an arena for positive queries
   * (every (n / sample)-th key): at n = 100 M the full arena is ~6 GB, and a query run touches far
   * fewer keys than that anyway. Fresh keys are indices n … n + SAMPLE_KEYS - 1.
   */
  @State(Scope.Benchmark)
  public static class QueryState {
    @Param({"bloom"})
    public String contender;

    @Param({"1000000"})
    public int n;

    Contender filter;
    KeyArena positives;
    KeyArena fresh;
    private int positiveCursor;
    private int negativeCursor;

    @Setup(Level.Trial)
    public void fill(BenchmarkParams params) throws IOException {
      filter = FilterCache.load(contender, n);
      if (filter == null) {
        Contender c = Contender.create(contender, n, FPP);
        KeyArena.forEachBlock(0, n, block -> putAll(c, block, block.size()));
        filter = c;
      }
      int sample = Math.min(n, SAMPLE_KEYS);
      positives = KeyArena.build(0, n / sample, sample);
      requireNoFalseNegatives(filter, positives, contender);
      String benchmark = params.getBenchmark();
      if (benchmark.contains(".negativeQuery")) {
        fresh = KeyArena.build(n, 1, SAMPLE_KEYS);
        // once per (contender, n): the hashing single-key fork measures it for everyone
        if (benchmark.endsWith(FilterBenchmark.class.getSimpleName() + ".negativeQuery")) {
          measureAccuracy();
        }
      }
    }

    private void measureAccuracy() {
      int hits = 0;
      for (int from = 0; from < fresh.size(); from += KeyArena.CHUNK_KEYS) {
        byte[] data = fresh.data(from);
        int[] offs = fresh.offsets(from);
        for (int j = 0, e = offs.length - 1; j < e; j++) {
          if (filter.mightContain(data, offs[j], offs[j + 1] - offs[j])) {
            hits++;
          }
        }
      }
      new Accuracy(contender, n, filter.bits(), filter.expectedFpp(n), hits, fresh.size()).append();
    }

    int nextPositive() {
      positiveCursor = advance(positiveCursor, positives.size());
      return positiveCursor;
    }

    int nextNegative() {
      negativeCursor = advance(negativeCursor, fresh.size());
      return negativeCursor;
    }
  }

  @Benchmark
  @BenchmarkMode(Mode.SingleShotTime)
  @OutputTimeUnit(TimeUnit.NANOSECONDS)
  public int insert(InsertState s) {
    return putAll(s.filter, s.keys, s.n);
  }

  @Benchmark
  @BenchmarkMode(Mode.AverageTime)
  @OutputTimeUnit(TimeUnit.NANOSECONDS)
  @OperationsPerInvocation(QUERY_BATCH)
  public int positiveQuery(QueryState s) {
    return query(s.filter, s.positives, s.nextPositive());
  }

  @Benchmark
  @BenchmarkMode(Mode.AverageTime)
  @OutputTimeUnit(TimeUnit.NANOSECONDS)
  @OperationsPerInvocation(QUERY_BATCH)
  public int negativeQuery(QueryState s) {
    return query(s.filter, s.fresh, s.nextNegative());
  }

  /**
   * Start of the next query batch. A batch never wraps: the tail of fewer than QUERY_BATCH keys is
   * skipped, and since CHUNK_KEYS is a multiple of QUERY_BATCH no batch straddles two chunks.
   */
  static int advance(int cursor, int size) {
    int next = cursor + QUERY_BATCH;
    return next + QUERY_BATCH > size ? 0 : next;
  }

  static int query(Contender filter, KeyArena keys, int from) {
    byte[] data = keys.data(from);
    int[] offs = keys.offsets(from);
    int hits = 0;
    for (int j = from & KeyArena.CHUNK_MASK, end = j + QUERY_BATCH; j < end; j++) {
      if (filter.mightContain(data, offs[j], offs[j + 1] - offs[j])) {
        hits++;
      }
    }
    return hits;
  }

  /** Puts the first {@code count} keys of the arena. */
  static int putAll(Contender filter, KeyArena keys, int count) {
    int changed = 0;
    for (int from = 0; from < count; from += KeyArena.CHUNK_KEYS) {
      byte[] data = keys.data(from);
      int[] offs = keys.offsets(from);
      for (int j = 0, e = Math.min(offs.length - 1, count - from); j < e; j++) {
        if (filter.put(data, offs[j], offs[j + 1] - offs[j])) {
          changed++;
        }
      }
    }
    return changed;
  }

  /** A Bloom filter must never miss a key it was given; a benchmark of a broken one is void. */
  static void requireNoFalseNegatives(Contender filter, KeyArena inserted, String name) {
    int checked = Math.min(inserted.size(), SANITY_KEYS);
    byte[] data = inserted.data(0);
    int[] offs = inserted.offsets(0);
    for (int j = 0; j < checked; j++) {
      if (!filter.mightContain(data, offs[j], offs[j + 1] - offs[j])) {
        throw new IllegalStateException(name + " lost inserted key #" + j);
      }
    }
  }
}
