package dev.idem.bench;

import dev.idem.core.Fingerprinter;
import dev.idem.core.filter.FilterType;
import dev.idem.core.filter.Filters;
import dev.idem.core.filter.MembershipFilter;
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

/**
 * idem's filters alone, from precomputed fingerprints: the filter's own cost with no hashing in the
 * loop (how idem's tiers use it, since a key is hashed once), one key at a time and in batches, to
 * answer whether {@code putAll}/{@code mightContainAll} pay off.
 *
 * <p>Batches call the ranged API on the big fingerprint array itself ({@code putAll(fps, from, from
 * + 256, flags)}); it writes answer {@code i} to {@code flags[i]}, so the flag arrays are as long
 * as the fingerprint arrays.
 */
@Fork(1)
public class FingerprintBenchmark {

  /** Keys per putAll/mightContainAll call: the "few hundred" the API documentation suggests. */
  static final int BATCH = 256;

  /** Fingerprints of keys 0 … n-1 in one long[2n], and an empty filter before each timed fill. */
  @State(Scope.Benchmark)
  public static class InsertState {
    @Param({"bloom"})
    public String contender;

    @Param({"1000000"})
    public int n;

    long[] fingerprints;
    MembershipFilter filter;
    boolean[] flags;

    @Setup(Level.Trial)
    public void fingerprints() {
      fingerprints = KeyArena.fingerprintRange(Fingerprinter.xxh3(), 0, n);
      flags = new boolean[n];
      // Compile both fill loops on throwaway filters (see FilterBenchmark.InsertState).
      int warmKeys = Math.min(n, FilterBenchmark.JIT_WARMUP_KEYS);
      FilterType type = FilterType.byName(contender);
      for (int round = 0; round < 5; round++) {
        fill(Filters.create(type, warmKeys, FilterBenchmark.FPP), fingerprints, warmKeys);
        fillBatched(Filters.create(type, warmKeys, FilterBenchmark.FPP), this, warmKeys);
      }
    }

    @Setup(Level.Iteration)
    public void emptyFilter() {
      if (filter != null) {
        requireNoFalseNegatives(filter, fingerprints, contender);
      }
      filter = null;
      System.gc();
      filter = Filters.create(FilterType.byName(contender), n, FilterBenchmark.FPP);
    }

    @TearDown(Level.Trial)
    public void check() {
      requireNoFalseNegatives(filter, fingerprints, contender);
    }
  }

  /** A filter holding keys 0 … n-1, their fingerprints, and those of fresh keys n …. */
  @State(Scope.Benchmark)
  public static class QueryState {
    @Param({"bloom"})
    public String contender;

    @Param({"1000000"})
    public int n;

    long[] fingerprints;
    long[] fresh;
    MembershipFilter filter;
    boolean[] flags;
    private int positiveCursor;
    private int negativeCursor;

    @Setup(Level.Trial)
    public void filled() throws IOException {
      Fingerprinter fp = Fingerprinter.xxh3();
      fingerprints = KeyArena.fingerprintRange(fp, 0, n);
      filter = FilterCache.loadIdem(contender, n);
      if (filter == null) {
        filter = Filters.create(FilterType.byName(contender), n, FilterBenchmark.FPP);
        fill(filter, fingerprints, n);
      }
      requireNoFalseNegatives(filter, fingerprints, contender);
      fresh = KeyArena.fingerprintRange(fp, n, FilterBenchmark.SAMPLE_KEYS);
      flags = new boolean[Math.max(n, FilterBenchmark.SAMPLE_KEYS)];
    }

    int nextPositive() {
      positiveCursor = FilterBenchmark.advance(positiveCursor, fingerprints.length / 2);
      return positiveCursor;
    }

    int nextNegative() {
      negativeCursor = FilterBenchmark.advance(negativeCursor, fresh.length / 2);
      return negativeCursor;
    }
  }

  @Benchmark
  @BenchmarkMode(Mode.SingleShotTime)
  @OutputTimeUnit(TimeUnit.NANOSECONDS)
  public int insert(InsertState s) {
    return fill(s.filter, s.fingerprints, s.n);
  }

  @Benchmark
  @BenchmarkMode(Mode.SingleShotTime)
  @OutputTimeUnit(TimeUnit.NANOSECONDS)
  public int insertBatch(InsertState s) {
    return fillBatched(s.filter, s, s.n);
  }

  static int fill(MembershipFilter filter, long[] fps, int n) {
    int changed = 0;
    for (int i = 0; i < n; i++) {
      if (filter.put(fps[2 * i], fps[2 * i + 1])) {
        changed++;
      }
    }
    return changed;
  }

  static int fillBatched(MembershipFilter filter, InsertState s, int n) {
    int changed = 0;
    for (int from = 0; from < n; from += BATCH) {
      int to = Math.min(from + BATCH, n);
      filter.putAll(s.fingerprints, from, to, s.flags);
      changed += countTrue(s.flags, from, to);
    }
    return changed;
  }

  @Benchmark
  @BenchmarkMode(Mode.AverageTime)
  @OutputTimeUnit(TimeUnit.NANOSECONDS)
  @OperationsPerInvocation(FilterBenchmark.QUERY_BATCH)
  public int positiveQuery(QueryState s) {
    return query(s.filter, s.fingerprints, s.nextPositive());
  }

  @Benchmark
  @BenchmarkMode(Mode.AverageTime)
  @OutputTimeUnit(TimeUnit.NANOSECONDS)
  @OperationsPerInvocation(FilterBenchmark.QUERY_BATCH)
  public int negativeQuery(QueryState s) {
    return query(s.filter, s.fresh, s.nextNegative());
  }

  @Benchmark
  @BenchmarkMode(Mode.AverageTime)
  @OutputTimeUnit(TimeUnit.NANOSECONDS)
  @OperationsPerInvocation(FilterBenchmark.QUERY_BATCH)
  public int positiveQueryBatch(QueryState s) {
    return queryBatched(s, s.fingerprints, s.nextPositive());
  }

  @Benchmark
  @BenchmarkMode(Mode.AverageTime)
  @OutputTimeUnit(TimeUnit.NANOSECONDS)
  @OperationsPerInvocation(FilterBenchmark.QUERY_BATCH)
  public int negativeQueryBatch(QueryState s) {
    return queryBatched(s, s.fresh, s.nextNegative());
  }

  static int query(MembershipFilter filter, long[] fps, int from) {
    int hits = 0;
    for (int i = from, end = from + FilterBenchmark.QUERY_BATCH; i < end; i++) {
      if (filter.mightContain(fps[2 * i], fps[2 * i + 1])) {
        hits++;
      }
    }
    return hits;
  }

  static int queryBatched(QueryState s, long[] fps, int from) {
    int hits = 0;
    for (int b = from, end = from + FilterBenchmark.QUERY_BATCH; b < end; b += BATCH) {
      s.filter.mightContainAll(fps, b, b + BATCH, s.flags);
      hits += countTrue(s.flags, b, b + BATCH);
    }
    return hits;
  }

  private static int countTrue(boolean[] flags, int from, int to) {
    int n = 0;
    for (int i = from; i < to; i++) {
      n += flags[i] ? 1 : 0;
    }
    return n;
  }

  static void requireNoFalseNegatives(MembershipFilter filter, long[] fps, String name) {
    int checked = Math.min(fps.length / 2, FilterBenchmark.SANITY_KEYS);
    for (int i = 0; i < checked; i++) {
      if (!filter.mightContain(fps[2 * i], fps[2 * i + 1])) {
        throw new IllegalStateException(name + " lost inserted fingerprint #" + i);
      }
    }
  }
}
