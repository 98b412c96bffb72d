package dev.idem.bench.jmh;

import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.BenchmarkParams;

/**
 * One set-like structure from key bytes, hashing included (what a user of each library gets): a
 * fill from empty to {@code n} keys ({@code fill}, single shot, a new structure each time: the
 * score is the whole fill, so ns per insert is the score over n), and queries of inserted keys
 * ({@code present}) and of keys never inserted ({@code absent}), per key, against a structure
 * filled once per fork. One small subclass per structure or library; JMH forks each, so every call
 * site sees one implementation.
 */
@Fork(1)
@Warmup(iterations = 2, time = 2)
@Measurement(iterations = 3, time = 2)
@State(Scope.Benchmark)
public abstract class StructureBench {

  static final int BATCH = 1024;
  static final double FPP = 0.001;

  @Param({"10000000"})
  public int n;

  Keys inserted;
  Keys fresh;
  private int present;
  private int absent;

  /** A new, empty structure for {@code n} keys at {@link #FPP}. */
  abstract void create(int n);

  /** Inserts key i of {@code keys}; true when the structure changed. */
  abstract boolean add(Keys keys, int i);

  abstract boolean contains(Keys keys, int i);

  /** The keys; and, for the query benchmarks, the structure filled once per fork. */
  @Setup(Level.Trial)
  public void setUp(BenchmarkParams params) {
    inserted = new Keys(0, n);
    fresh = new Keys(n, Math.min(n, 1 << 20));
    if (!params.getBenchmark().endsWith(".fill")) {
      create(n);
      for (int i = 0; i < n; i++) {
        add(inserted, i);
      }
    }
  }

  @Benchmark
  @BenchmarkMode(Mode.SingleShotTime)
  @OutputTimeUnit(TimeUnit.MILLISECONDS)
  @Warmup(iterations = 1)
  @Measurement(iterations = 3)
  public int fill() {
    create(n);
    int changed = 0;
    for (int i = 0; i < n; i++) {
      changed += add(inserted, i) ? 1 : 0;
    }
    return changed;
  }

  @Benchmark
  @BenchmarkMode(Mode.AverageTime)
  @OutputTimeUnit(TimeUnit.NANOSECONDS)
  @OperationsPerInvocation(BATCH)
  public int present() {
    int hits = 0;
    for (int i = 0; i < BATCH; i++) {
      present = present + 1 < n ? present + 1 : 0;
      hits += contains(inserted, present) ? 1 : 0;
    }
    return hits;
  }

  @Benchmark
  @BenchmarkMode(Mode.AverageTime)
  @OutputTimeUnit(TimeUnit.NANOSECONDS)
  @OperationsPerInvocation(BATCH)
  public int absent() {
    int hits = 0;
    for (int i = 0; i < BATCH; i++) {
      absent = absent + 1 < fresh.count ? absent + 1 : 0;
      hits += contains(fresh, absent) ? 1 : 0;
    }
    return hits;
  }
}
