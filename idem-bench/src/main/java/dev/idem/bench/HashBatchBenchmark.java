package dev.idem.bench;

import dev.idem.core.Fingerprinter;
import dev.idem.core.filter.FilterType;
import dev.idem.core.filter.Filters;
import dev.idem.core.filter.MembershipFilter;
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
 * idem's filters used the way a caller with many keys would: per batch of {@link #BATCH} keys, hash
 * them from the arena into a {@code long[]} with {@code fingerprintInto}, then one {@code
 * putAll}/{@code mightContainAll}. Unlike the single-key path, the filter sees the whole batch's
 * positions before it touches memory, so the cache (and TLB) misses of a batch overlap instead of
 * queuing behind each key's hash. Hashing is included, so these times compare with Guava's.
 */
@Fork(1)
public class HashBatchBenchmark {

  static final int BATCH = FingerprintBenchmark.BATCH;

  /** Keys 0 … n-1 in one arena and an empty filter before each timed fill. */
  @State(Scope.Benchmark)
  public static class InsertState {
    @Param({"blocked"})
    public String contender;

    @Param({"1000000"})
    public int n;

    KeyArena keys;
    MembershipFilter filter;
    final Batch batch = new Batch();

    @Setup(Level.Trial)
    public void buildKeys() {
      keys = KeyArena.build(0, 1, n);
      // As in FilterBenchmark: small throwaway fills compile the loop when n is too large for a
      // warm-up iteration.
      int warmKeys = Math.min(n, FilterBenchmark.JIT_WARMUP_KEYS);
      FilterType type = FilterType.byName(contender);
      for (int round = 0; round < 5; round++) {
        fill(Filters.create(type, warmKeys, FilterBenchmark.FPP), keys, warmKeys, batch);
      }
    }

    @Setup(Level.Iteration)
    public void emptyFilter() {
      check();
      filter = null;
      System.gc();
      filter = Filters.create(FilterType.byName(contender), n, FilterBenchmark.FPP);
    }

    @TearDown(Level.Trial)
    public void check() {
      if (filter != null) {
        FilterBenchmark.requireNoFalseNegatives(new Contender.Idem(filter), keys, contender);
      }
    }
  }

  /** Reusable per-thread buffers: 256 fingerprints and their answers. */
  static final class Batch {
    final Fingerprinter fingerprinter = Fingerprinter.xxh3();
    final long[] fingerprints = new long[2 * BATCH];
    final boolean[] flags = new boolean[BATCH];

    /** Hashes keys {@code from … from + count - 1} (one chunk) into slots 0 … count - 1. */
    void hash(KeyArena keys, int from, int count) {
      byte[] data = keys.data(from);
      int[] offs = keys.offsets(from);
      for (int k = 0, j = from & KeyArena.CHUNK_MASK; k < count; k++, j++) {
        fingerprinter.fingerprintInto(data, offs[j], offs[j + 1] - offs[j], fingerprints, k);
      }
    }

    int countTrue(int count) {
      int t = 0;
      for (int i = 0; i < count; i++) {
        t += flags[i] ? 1 : 0;
      }
      return t;
    }
  }

  @Benchmark
  @BenchmarkMode(Mode.SingleShotTime)
  @OutputTimeUnit(TimeUnit.NANOSECONDS)
  public int insertBatchHash(InsertState s) {
    return fill(s.filter, s.keys, s.n, s.batch);
  }

  /** Batches start at multiples of BATCH, which divides CHUNK_KEYS: none straddles two chunks. */
  static int fill(MembershipFilter filter, KeyArena keys, int count, Batch b) {
    int changed = 0;
    for (int from = 0; from < count; from += BATCH) {
      int m = Math.min(BATCH, count - from);
      b.hash(keys, from, m);
      filter.putAll(b.fingerprints, 0, m, b.flags);
      changed += b.countTrue(m);
    }
    return changed;
  }

  @State(Scope.Thread)
  public static class Buffers {
    final Batch batch = new Batch();
  }

  @Benchmark
  @BenchmarkMode(Mode.AverageTime)
  @OutputTimeUnit(TimeUnit.NANOSECONDS)
  @OperationsPerInvocation(FilterBenchmark.QUERY_BATCH)
  public int positiveQueryBatchHash(FilterBenchmark.QueryState s, Buffers b) {
    return query(s.filter.idem(), s.positives, s.nextPositive(), b.batch);
  }

  @Benchmark
  @BenchmarkMode(Mode.AverageTime)
  @OutputTimeUnit(TimeUnit.NANOSECONDS)
  @OperationsPerInvocation(FilterBenchmark.QUERY_BATCH)
  public int negativeQueryBatchHash(FilterBenchmark.QueryState s, Buffers b) {
    return query(s.filter.idem(), s.fresh, s.nextNegative(), b.batch);
  }

  static int query(MembershipFilter filter, KeyArena keys, int from, Batch b) {
    int hits = 0;
    for (int at = from, end = from + FilterBenchmark.QUERY_BATCH; at < end; at += BATCH) {
      b.hash(keys, at, BATCH);
      filter.mightContainAll(b.fingerprints, 0, BATCH, b.flags);
      hits += b.countTrue(BATCH);
    }
    return hits;
  }
}
