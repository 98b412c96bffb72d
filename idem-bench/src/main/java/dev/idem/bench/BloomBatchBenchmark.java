package dev.idem.bench;

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

/**
 * Bloom filter queries from key bytes (hashing included) at a given n and rate (issue #18): key by
 * key for every contender ({@code query}: Guava hashes inside {@code mightContain}, idem hashes
 * with {@code Fingerprinter.fingerprint} then asks the filter), and for idem also the way the dedup
 * job asks ({@code jobBatch}): a batch of {@link HashBatchBenchmark#BATCH} keys hashed with {@code
 * fingerprintInto} into one {@code long[]}, then per {@link MembershipFilter#PREFETCH_CHUNK} keys a
 * {@code prefetch} followed by one {@code mightContain} each (TieredJudge's loop).
 */
@Fork(1)
public class BloomBatchBenchmark {

  /** A filter holding keys 0 … n-1 at rate fpp, a sample of them, and fresh keys. */
  @State(Scope.Benchmark)
  public static class QueryState {
    @Param({"blocked"})
    public String contender;

    @Param({"1000000"})
    public int n;

    @Param({"0.001"})
    public double fpp;

    Contender filter;
    KeyArena positives;
    KeyArena fresh;
    private int positiveCursor;
    private int negativeCursor;

    @Setup(Level.Trial)
    public void fill() {
      Contender c = Contender.create(contender, n, fpp);
      MembershipFilter idem = c instanceof Contender.Idem i ? i.filter : null;
      HashBatchBenchmark.Batch batch = new HashBatchBenchmark.Batch();
      // idem fills through the batch path (faster to set up, same bits as key by key)
      KeyArena.forEachBlock(
          0,
          n,
          block -> {
            if (idem != null) {
              HashBatchBenchmark.fill(idem, block, block.size(), batch);
            } else {
              FilterBenchmark.putAll(c, block, block.size());
            }
          });
      filter = c;
      int sample = Math.min(n, FilterBenchmark.SAMPLE_KEYS);
      positives = KeyArena.build(0, n / sample, sample);
      FilterBenchmark.requireNoFalseNegatives(filter, positives, contender);
      fresh = KeyArena.build(n, 1, Math.min(n, FilterBenchmark.SAMPLE_KEYS));
    }

    int nextPositive() {
      positiveCursor = FilterBenchmark.advance(positiveCursor, positives.size());
      return positiveCursor;
    }

    int nextNegative() {
      negativeCursor = FilterBenchmark.advance(negativeCursor, fresh.size());
      return negativeCursor;
    }
  }

  @Benchmark
  @BenchmarkMode(Mode.AverageTime)
  @OutputTimeUnit(TimeUnit.NANOSECONDS)
  @OperationsPerInvocation(FilterBenchmark.QUERY_BATCH)
  public int positiveQuery(QueryState s) {
    return FilterBenchmark.query(s.filter, s.positives, s.nextPositive());
  }

  @Benchmark
  @BenchmarkMode(Mode.AverageTime)
  @OutputTimeUnit(TimeUnit.NANOSECONDS)
  @OperationsPerInvocation(FilterBenchmark.QUERY_BATCH)
  public int negativeQuery(QueryState s) {
    return FilterBenchmark.query(s.filter, s.fresh, s.nextNegative());
  }

  /** Per-thread hashing buffers. */
  @State(Scope.Thread)
  public static class Buffers {
    final HashBatchBenchmark.Batch batch = new HashBatchBenchmark.Batch();
  }

  @Benchmark
  @BenchmarkMode(Mode.AverageTime)
  @OutputTimeUnit(TimeUnit.NANOSECONDS)
  @OperationsPerInvocation(FilterBenchmark.QUERY_BATCH)
  public int positiveJobBatch(QueryState s, Buffers b) {
    return jobQuery(s.filter.idem(), s.positives, s.nextPositive(), b.batch);
  }

  @Benchmark
  @BenchmarkMode(Mode.AverageTime)
  @OutputTimeUnit(TimeUnit.NANOSECONDS)
  @OperationsPerInvocation(FilterBenchmark.QUERY_BATCH)
  public int negativeJobBatch(QueryState s, Buffers b) {
    return jobQuery(s.filter.idem(), s.fresh, s.nextNegative(), b.batch);
  }

  /** Hash a batch, then per chunk: prefetch it, ask each key (the loop of the job's judge). */
  static int jobQuery(
      MembershipFilter filter, KeyArena keys, int from, HashBatchBenchmark.Batch b) {
    int hits = 0;
    long[] fps = b.fingerprints;
    int chunk = MembershipFilter.PREFETCH_CHUNK;
    int batch = HashBatchBenchmark.BATCH;
    for (int at = from, end = from + FilterBenchmark.QUERY_BATCH; at < end; at += batch) {
      b.hash(keys, at, batch);
      for (int c = 0; c < batch; c += chunk) {
        filter.prefetch(fps, c, c + chunk);
        for (int i = c; i < c + chunk; i++) {
          hits += filter.mightContain(fps[2 * i], fps[2 * i + 1]) ? 1 : 0;
        }
      }
    }
    return hits;
  }
}
