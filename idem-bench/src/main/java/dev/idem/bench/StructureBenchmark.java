package dev.idem.bench;

import dev.idem.core.Fingerprinter;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
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
 * The structures benchmark: insert (a fill from empty to n, single shot), positive and negative
 * queries (batches of 1024 against a structure filled once per trial), delete (removing all n keys
 * from a structure filled before each iteration), for every structure of {@link Structure}.
 */
@Fork(1)
public class StructureBenchmark {

  static final double FPP = 0.001;

  /** System property naming the side file of per-structure notes (layers, load, …). */
  static final String NOTES_PROPERTY = "idem.bench.notes";

  /** System property: how many fresh keys the negative queries and the FPR measurement use. */
  static final String FRESH_PROPERTY = "idem.bench.fresh";

  /** The keys 0 … n-1 in the structure's input form, an empty structure before each fill. */
  @State(Scope.Benchmark)
  public static class InsertState {
    @Param({"fingerprint-set"})
    public String structure;

    @Param({"1000000"})
    public int n;

    StructureKeys keys;
    Structure target;

    @Setup(Level.Trial)
    public void keys() {
      keys = StructureKeys.of(Structure.create(structure, 1000, FPP).input(), 0, n);
      int warm = Math.min(n, FilterBenchmark.JIT_WARMUP_KEYS);
      StructureKeys warmKeys = StructureKeys.of(keys.input(), 0, warm);
      for (int round = 0; round < 5; round++) {
        fill(Structure.create(structure, warm, FPP), warmKeys);
      }
    }

    @Setup(Level.Iteration)
    public void empty() {
      target = null;
      System.gc();
      target = Structure.create(structure, n, FPP);
      if (target instanceof AnchorStructures.FastFilterCuckoo f) {
        f.prepare(keys);
      }
    }

    @TearDown(Level.Iteration)
    public void check() {
      requireAll(target, keys, structure);
    }
  }

  @Benchmark
  @BenchmarkMode(Mode.SingleShotTime)
  @OutputTimeUnit(TimeUnit.NANOSECONDS)
  public int insert(InsertState s) {
    return fill(s.target, s.keys);
  }

  /** Inserts every key (or builds from all of them, for structures built once). */
  static int fill(Structure target, StructureKeys keys) {
    if (target.buildsOnce()) {
      target.build(keys);
      return keys.count;
    }
    int added = 0;
    for (int j = 0, n = keys.count; j < n; j++) {
      added += target.insert(keys, j) ? 1 : 0;
    }
    return added;
  }

  /** A structure holding keys 0 … n-1, positive query keys, and fresh keys n, n + 1, …. */
  @State(Scope.Benchmark)
  public static class QueryState {
    @Param({"fingerprint-set"})
    public String structure;

    @Param({"1000000"})
    public int n;

    Structure target;
    StructureKeys positives;
    StructureKeys fresh;
    private int positiveCursor;
    private int negativeCursor;

    @Setup(Level.Trial)
    public void fill(BenchmarkParams params) {
      target = Structure.create(structure, n, FPP);
      StructureKeys inserted = StructureKeys.of(target.input(), 0, n);
      StructureBenchmark.fill(target, inserted);
      requireAll(target, inserted, structure);
      // Queries get their own String objects: a dedup job looks up a new record's key, not the
      // very object stored in the set (whose equals would succeed on identity).
      positives =
          target.input() == Structure.Input.STRINGS
              ? StructureKeys.of(target.input(), 0, n)
              : inserted;
      if (params.getBenchmark().endsWith(".negativeQuery")) {
        int freshKeys = Integer.getInteger(FRESH_PROPERTY, FilterBenchmark.SAMPLE_KEYS);
        fresh = StructureKeys.of(target.input(), n, freshKeys);
        measureAccuracy();
      }
    }

    private void measureAccuracy() {
      long hits = 0;
      for (int j = 0; j < fresh.count; j++) {
        hits += target.contains(fresh, j) ? 1 : 0;
      }
      new Accuracy(structure, n, target.bits(), target.expectedFpp(n), hits, fresh.count).append();
      appendNote(structure, n, target.notes() + "\t" + target.expectedSource());
    }

    int nextPositive() {
      positiveCursor = FilterBenchmark.advance(positiveCursor, positives.count);
      return positiveCursor;
    }

    int nextNegative() {
      negativeCursor = FilterBenchmark.advance(negativeCursor, fresh.count);
      return negativeCursor;
    }
  }

  @Benchmark
  @BenchmarkMode(Mode.AverageTime)
  @OutputTimeUnit(TimeUnit.NANOSECONDS)
  @OperationsPerInvocation(FilterBenchmark.QUERY_BATCH)
  public int positiveQuery(QueryState s) {
    return query(s.target, s.positives, s.nextPositive());
  }

  @Benchmark
  @BenchmarkMode(Mode.AverageTime)
  @OutputTimeUnit(TimeUnit.NANOSECONDS)
  @OperationsPerInvocation(FilterBenchmark.QUERY_BATCH)
  public int negativeQuery(QueryState s) {
    return query(s.target, s.fresh, s.nextNegative());
  }

  static int query(Structure target, StructureKeys keys, int from) {
    int hits = 0;
    for (int j = from, end = from + FilterBenchmark.QUERY_BATCH; j < end; j++) {
      hits += target.contains(keys, j) ? 1 : 0;
    }
    return hits;
  }

  /** Share of the mixed stream's operations that bring a new key (the rest repeat one). */
  static final double MIXED_NEW = 0.7;

  /**
   * The dedup job's own use of a set: a stream of {@code addIfAbsent} calls in which 70 % bring a
   * key not seen yet and 30 % repeat a key already added (chosen uniformly, so a repeat's slot is a
   * random memory access like a new key's). The stream ends when all n distinct keys are in, into a
   * structure pre-sized for n; an empty one before each timed pass.
   */
  @State(Scope.Benchmark)
  public static class MixedState {
    @Param({"fingerprint-set"})
    public String structure;

    @Param({"1000000"})
    public int n;

    StructureKeys keys;
    int[] stream;
    Structure target;
    int added;

    @Setup(Level.Trial)
    public void keys() {
      keys = StructureKeys.of(Structure.create(structure, 1000, FPP).input(), 0, n);
      stream = mixedStream(n, 42);
      int warm = Math.min(n, FilterBenchmark.JIT_WARMUP_KEYS);
      int[] warmStream = mixedStream(warm, 7);
      for (int round = 0; round < 5; round++) {
        addAll(Structure.create(structure, warm, FPP), keys, warmStream);
      }
    }

    @Setup(Level.Iteration)
    public void empty() {
      target = null;
      System.gc();
      target = Structure.create(structure, n, FPP);
    }

    @TearDown(Level.Iteration)
    public void check() {
      if (added != n) {
        throw new IllegalStateException(structure + " added " + added + " distinct keys of " + n);
      }
      requireAll(target, keys, structure);
    }
  }

  /** Ops in the mixed stream for n distinct keys: what {@link BenchMain} passes as ops/call. */
  static int mixedOps(int n) {
    // the same draws as mixedStream, counted: the driver JVM has no room for the stream itself
    java.util.SplittableRandom rnd = new java.util.SplittableRandom(42);
    int ops = 0;
    int next = 0;
    while (next < n) {
      if (next == 0 || rnd.nextDouble() < MIXED_NEW) {
        next++;
      } else {
        rnd.nextInt(next);
      }
      ops++;
    }
    return ops;
  }

  /**
   * Key indices: each op is new with probability {@link #MIXED_NEW} (the next unseen index) or a
   * repeat of an index already in, uniformly; fixed seed, so every structure gets the same stream.
   */
  static int[] mixedStream(int n, long seed) {
    java.util.SplittableRandom rnd = new java.util.SplittableRandom(seed);
    int[] out =
        new int[(int) Math.min(Integer.MAX_VALUE - 8, (long) (n / MIXED_NEW * 1.01) + 1024)];
    int ops = 0;
    int next = 0;
    while (next < n) {
      if (next == 0 || rnd.nextDouble() < MIXED_NEW) {
        out[ops++] = next++;
      } else {
        out[ops++] = rnd.nextInt(next);
      }
    }
    return java.util.Arrays.copyOf(out, ops);
  }

  @Benchmark
  @BenchmarkMode(Mode.SingleShotTime)
  @OutputTimeUnit(TimeUnit.NANOSECONDS)
  public int mixed(MixedState s) {
    s.added = addAll(s.target, s.keys, s.stream);
    return s.added;
  }

  static int addAll(Structure target, StructureKeys keys, int[] stream) {
    int added = 0;
    for (int j : stream) {
      added += target.insert(keys, j) ? 1 : 0;
    }
    return added;
  }

  /** Keys 0 … n-1, added to a new structure before each timed removal of all of them. */
  @State(Scope.Benchmark)
  public static class DeleteState {
    @Param({"fingerprint-set"})
    public String structure;

    @Param({"1000000"})
    public int n;

    StructureKeys keys;
    Structure target;
    int deleted;

    @Setup(Level.Trial)
    public void keys() {
      keys = StructureKeys.of(Structure.create(structure, 1000, FPP).input(), 0, n);
      int warm = Math.min(n, FilterBenchmark.JIT_WARMUP_KEYS);
      StructureKeys warmKeys = StructureKeys.of(keys.input(), 0, warm);
      for (int round = 0; round < 5; round++) {
        Structure s = Structure.create(structure, warm, FPP);
        addAll(s, warmKeys);
        deleteAll(s, warmKeys);
      }
    }

    @Setup(Level.Iteration)
    public void filled() {
      target = null;
      System.gc();
      target = Structure.create(structure, n, FPP);
      addAll(target, keys);
    }

    @TearDown(Level.Iteration)
    public void check() {
      // every key was added, so every removal must find it (a cuckoo add refused as full aside)
      if (deleted < n - refused(target)) {
        throw new IllegalStateException(structure + " removed only " + deleted + " of " + n);
      }
    }
  }

  @Benchmark
  @BenchmarkMode(Mode.SingleShotTime)
  @OutputTimeUnit(TimeUnit.NANOSECONDS)
  public int delete(DeleteState s) {
    s.deleted = deleteAll(s.target, s.keys);
    return s.deleted;
  }

  static void addAll(Structure target, StructureKeys keys) {
    for (int j = 0, n = keys.count; j < n; j++) {
      target.addForDelete(keys, j);
    }
  }

  static int deleteAll(Structure target, StructureKeys keys) {
    int deleted = 0;
    for (int j = 0, n = keys.count; j < n; j++) {
      deleted += target.delete(keys, j) ? 1 : 0;
    }
    return deleted;
  }

  private static long refused(Structure s) {
    return s instanceof IdemStructures.Deletable d ? d.refused() : 0;
  }

  /** The cost of XXH3-128 on the same keys: add it to the rows fed precomputed fingerprints. */
  @State(Scope.Benchmark)
  public static class HashState {
    @Param({"1000000"})
    public int n;

    KeyArena keys;
    final long[] out = new long[2];
    private int cursor;

    @Setup(Level.Trial)
    public void keys() {
      keys = KeyArena.build(0, 1, Math.min(n, FilterBenchmark.SAMPLE_KEYS));
    }

    int next() {
      cursor = FilterBenchmark.advance(cursor, keys.size());
      return cursor;
    }
  }

  @Benchmark
  @BenchmarkMode(Mode.AverageTime)
  @OutputTimeUnit(TimeUnit.NANOSECONDS)
  @OperationsPerInvocation(FilterBenchmark.QUERY_BATCH)
  public long hashKeys(HashState s) {
    Fingerprinter fp = Fingerprinter.xxh3();
    int from = s.next();
    byte[] data = s.keys.data(from);
    int[] offs = s.keys.offsets(from);
    long x = 0;
    for (int j = from & KeyArena.CHUNK_MASK, end = j + FilterBenchmark.QUERY_BATCH; j < end; j++) {
      fp.fingerprintInto(data, offs[j], offs[j + 1] - offs[j], s.out, 0);
      x ^= s.out[0];
    }
    return x;
  }

  /** A structure that lost an inserted key is broken; its timings would be void. */
  static void requireAll(Structure target, StructureKeys keys, String name) {
    if (target == null) {
      return;
    }
    int checked = Math.min(keys.count, FilterBenchmark.SANITY_KEYS);
    for (int j = 0; j < checked; j++) {
      if (!target.contains(keys, j)
          && !(target instanceof IdemStructures.Deletable d && d.refused() > 0)) {
        throw new IllegalStateException(name + " lost inserted key #" + j);
      }
    }
  }

  static void appendNote(String structure, int n, String text) {
    String file = System.getProperty(NOTES_PROPERTY);
    if (file == null || file.isEmpty()) {
      return;
    }
    try {
      Files.writeString(
          Path.of(file),
          structure + "\t" + n + "\t" + text + "\n",
          StandardCharsets.UTF_8,
          StandardOpenOption.CREATE,
          StandardOpenOption.APPEND);
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }
}
