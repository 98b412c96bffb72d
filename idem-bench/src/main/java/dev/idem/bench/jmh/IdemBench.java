package dev.idem.bench.jmh;

import dev.idem.core.filter.FilterType;
import dev.idem.core.filter.Filters;
import dev.idem.core.filter.MembershipFilter;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;

/**
 * idem's structures ({@code Filters.create}: the Bloom filters, scalable, counting, cuckoo, and the
 * exact {@code FingerprintSet}), each key hashed to its XXH3-128 fingerprint first; and the dedup
 * job's batch path ({@code presentBatch}, {@code absentBatch}): 256 keys hashed into one array,
 * then per chunk of {@code PREFETCH_CHUNK} a prefetch and the probes, so their cache misses
 * overlap.
 */
public class IdemBench extends StructureBench {

  private static final int HASHED = 256;

  @Param({"bloom", "blocked", "partitioned", "scalable", "counting", "cuckoo", "exact"})
  public String type;

  private MembershipFilter filter;
  private final long[] fp = new long[2 * HASHED];
  private int present;
  private int absent;

  @Override
  void create(int n) {
    filter = Filters.create(FilterType.valueOf(type.toUpperCase(java.util.Locale.ROOT)), n, FPP);
  }

  @Override
  boolean add(Keys keys, int i) {
    keys.fingerprint(i, fp, 0);
    return filter.put(fp[0], fp[1]);
  }

  @Override
  boolean contains(Keys keys, int i) {
    keys.fingerprint(i, fp, 0);
    return filter.mightContain(fp[0], fp[1]);
  }

  @Benchmark
  @BenchmarkMode(Mode.AverageTime)
  @OutputTimeUnit(TimeUnit.NANOSECONDS)
  @OperationsPerInvocation(BATCH)
  public int presentBatch() {
    present = present + BATCH <= n ? present : 0;
    int hits = batch(inserted, present);
    present += BATCH;
    return hits;
  }

  @Benchmark
  @BenchmarkMode(Mode.AverageTime)
  @OutputTimeUnit(TimeUnit.NANOSECONDS)
  @OperationsPerInvocation(BATCH)
  public int absentBatch() {
    absent = absent + BATCH <= fresh.count ? absent : 0;
    int hits = batch(fresh, absent);
    absent += BATCH;
    return hits;
  }

  private int batch(Keys keys, int from) {
    int hits = 0;
    int chunk = MembershipFilter.PREFETCH_CHUNK;
    for (int at = from; at < from + BATCH; at += HASHED) {
      for (int i = 0; i < HASHED; i++) {
        keys.fingerprint(at + i, fp, i);
      }
      for (int c = 0; c < HASHED; c += chunk) {
        filter.prefetch(fp, c, c + chunk);
        for (int i = c; i < c + chunk; i++) {
          hits += filter.mightContain(fp[2 * i], fp[2 * i + 1]) ? 1 : 0;
        }
      }
    }
    return hits;
  }
}
