package dev.idem.engine.plan;

import dev.idem.core.ByteSize;
import dev.idem.core.filter.CuckooFilter;
import dev.idem.core.filter.FilterLayout;
import dev.idem.core.filter.FilterMath;
import dev.idem.core.filter.FilterType;
import dev.idem.core.filter.FingerprintSet;
import dev.idem.core.filter.ScalableBloomFilter;
import dev.idem.engine.sort.SortDedupJob;
import dev.idem.engine.sort.SortDedupSpec;
import dev.idem.engine.state.ExactTierPlacement;
import dev.idem.engine.window.WindowedDeduplicator;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Costs every method idem offers for a {@link Workload} and picks one. All sizes come from the
 * structures' own sizing code ({@link FilterMath}, {@link FingerprintSet#bytesFor}, {@link
 * CuckooFilter#bitSizeFor}, {@link SortDedupJob#footprint}, ...), never from a copy of the
 * formulas, so the plan and the job agree.
 *
 * <p>The memory of a method that runs as an idem job (the exact set in memory, RocksDB, sort-merge,
 * windows) is the Java heap the job needs, its {@link JobMemory#WORKING_HEAP} included; a
 * structure's row is the structure alone. A method fits a budget when an idem command built on it
 * runs in a heap of that size ({@code IDEM_JAVA_OPTS=-Xmx…}): a structure with the working heap
 * beside it, a job as it is.
 *
 * <p>Why it is long: the cost of every method and the choice between them read the same rows, and
 * each choice states its reason with that method's numbers; the sizes themselves come from the
 * structures' own code.
 */
public final class Planner {

  /** The row of a dedup job whose exact set is in memory. */
  public static final String MEMORY_TIER = "exact set in memory";

  /** The row of a dedup job whose exact set is in RocksDB, behind a filter. */
  public static final String ROCKSDB_TIER = "two-tier + RocksDB";

  /** The row of a dedup job by the partitioned method: partition files judged in memory. */
  public static final String PARTITIONED = "partitioned (two reads)";

  /**
   * The least heap the partitioned method is planned in: 4 MiB of set per partition file (about
   * 190,000 keys) beside the job's heap; more partitions when the keys are more.
   */
  static final long PARTITIONED_HEAP = JobMemory.WORKING_HEAP + (4L << 20);

  /** RocksDB bytes on disk per 16-byte fingerprint: internal key, block and index overhead. */
  static final long ROCKSDB_BYTES_PER_KEY = 32;

  /** The working memory external sort uses when no budget is given. */
  static final long DEFAULT_SORT_MEMORY = 64L << 20;

  /** Initial capacity of a scalable filter when the key count is unknown (as idem dedup). */
  static final long SCALABLE_INITIAL = 1_000_000;

  /** Open buckets a windowed job holds: the window being filled and the one before it. */
  static final int WINDOW_BUCKETS = 2;

  private Planner() {}

  /** The cost of every method for the workload, in the plan table's order. */
  public static List<MethodEstimate> methods(Workload w) {
    long n = w.distinct();
    double p = w.filterFpp();
    List<MethodEstimate> rows = new ArrayList<>();
    rows.add(
        row(
            w,
            "HashSet<String>",
            StringSetSize.bytes(n, w.meanKeyBytes()),
            0,
            0,
            0,
            true,
            true,
            false,
            "java.util.HashSet of the keys: the naive baseline"));
    rows.add(
        row(
            w,
            "FingerprintSet",
            FingerprintSet.bytesFor(n),
            0,
            collision(n),
            0,
            true,
            true,
            false,
            "exact 128-bit fingerprints, load 0.75"));
    for (FilterType t : List.of(FilterType.BLOOM, FilterType.BLOCKED, FilterType.PARTITIONED)) {
      FilterLayout l = t.layout(n, p);
      rows.add(
          row(
              w,
              bloomName(t),
              l.bitSize() / 8,
              0,
              l.expectedFpp(),
              0,
              false,
              false,
              false,
              "k = " + l.hashCount()));
    }
    long scalable =
        ScalableBloomFilter.builder()
            .initialCapacity(Math.min(n, SCALABLE_INITIAL))
            .falsePositiveRate(p)
            .bitSizeFor(n);
    rows.add(
        row(
            w,
            "scalable Bloom",
            scalable / 8,
            0,
            p,
            0,
            false,
            false,
            false,
            "grown from " + Math.min(n, SCALABLE_INITIAL) + " keys; rate is a bound"));
    FilterLayout counting = FilterType.BLOOM.layout(n, p);
    rows.add(
        row(
            w,
            "counting Bloom",
            counting.bitSize() * 4 / 8,
            0,
            counting.expectedFpp(),
            0,
            false,
            true,
            false,
            "4-bit counters"));
    for (int bits : new int[] {8, 12, 16}) {
      rows.add(
          row(
              w,
              "cuckoo " + bits + "-bit",
              CuckooFilter.bitSizeFor(n, bits) / 8,
              0,
              CuckooFilter.falsePositiveRate(0.95, bits),
              0,
              false,
              true,
              false,
              "load 0.95"));
    }
    long set = JobMemory.exactSetBytes(n);
    rows.add(
        job(
            w,
            MEMORY_TIER,
            JobMemory.memoryTier(n, false),
            0,
            0,
            0,
            true,
            false,
            false,
            "the job's striped set alone, "
                + ByteSize.format(set)
                + ", + "
                + ByteSize.format(JobMemory.WORKING_HEAP)
                + " job heap; resumable"));
    rows.add(
        job(
            w,
            PARTITIONED,
            PARTITIONED_HEAP,
            24 * Math.max(w.records(), n),
            0,
            0,
            true,
            false,
            false,
            "keys to partition files (24 bytes a record), each judged in memory, then a second "
                + "read writes the records; files only; resumable"));
    long filter = FilterType.BLOCKED.layout(n, p).bitSize() / 8;
    double tierFpp = FilterType.BLOCKED.layout(n, p).expectedFpp();
    rows.add(
        job(
            w,
            ROCKSDB_TIER,
            JobMemory.withWorkingHeap(filter),
            n * ROCKSDB_BYTES_PER_KEY,
            0,
            tierFpp,
            true,
            false,
            false,
            "blocked Bloom + RocksDB (cache outside the heap: a quarter of it, at least 64 MiB); "
                + "resumable"));
    rows.add(sortMerge(w));
    rows.add(windowed(w));
    return rows;
  }

  /** The {@code --memory} of sort-dedup for the workload: what its heap budget allows. */
  static long sortMemory(Workload w) {
    return w.memoryBytes() > 0
        ? Math.max(SortDedupSpec.MIN_MEMORY, JobMemory.sortMemoryFor(w.memoryBytes()))
        : DEFAULT_SORT_MEMORY;
  }

  private static MethodEstimate sortMerge(Workload w) {
    long memory = sortMemory(w);
    boolean knownSize = w.inputBytes() > 0;
    long input = knownSize ? w.inputBytes() : (long) (w.records() * (w.meanKeyBytes() + 1));
    SortDedupJob.Footprint f =
        SortDedupJob.footprint(memory, input, w.records(), SortDedupSpec.Order.INPUT);
    return job(
        w,
        "external sort-merge",
        JobMemory.sortHeap(memory),
        f.tempBytes(),
        0,
        0,
        true,
        false,
        false,
        ByteSize.format(memory)
            + " of sort memory, "
            + f.runs()
            + " run(s), "
            + f.mergePasses()
            + " merge pass(es)"
            + (knownSize ? "" : " (input size guessed from keys)")
            + "; batch only");
  }

  private static MethodEstimate windowed(Workload w) {
    if (w.keysPerWindow() <= 0) {
      return new MethodEstimate(
          "windowed",
          -1,
          0,
          0,
          0,
          true,
          false,
          true,
          true,
          "36-72 B a key of the open windows; give --keys-per-window");
    }
    long bytes = WindowedDeduplicator.stateBytesFor(w.keysPerWindow(), WINDOW_BUCKETS);
    return job(
        w,
        "windowed",
        JobMemory.withWorkingHeap(bytes),
        0,
        0,
        0,
        true,
        false,
        true,
        w.keysPerWindow()
            + " keys a window, "
            + WINDOW_BUCKETS
            + " windows open, "
            + ByteSize.format(bytes)
            + " + job heap");
  }

  private static MethodEstimate row(
      Workload w,
      String method,
      long memory,
      long disk,
      double fpp,
      double lookups,
      boolean exact,
      boolean deletes,
      boolean windows,
      String note) {
    return new MethodEstimate(
        method,
        memory,
        disk,
        fpp,
        lookups,
        exact,
        deletes,
        windows,
        heapFits(w, JobMemory.withWorkingHeap(memory)),
        note);
  }

  /** A method that runs as an idem job: {@code heap} is all the heap it needs. */
  private static MethodEstimate job(
      Workload w,
      String method,
      long heap,
      long disk,
      double fpp,
      double lookups,
      boolean exact,
      boolean deletes,
      boolean windows,
      String note) {
    return new MethodEstimate(
        method, heap, disk, fpp, lookups, exact, deletes, windows, heapFits(w, heap), note);
  }

  private static boolean heapFits(Workload w, long heap) {
    return w.memoryBytes() <= 0 || heap <= w.memoryBytes();
  }

  /** The chance that two of n distinct keys share a 128-bit fingerprint: about n² / 2^129. */
  private static double collision(long n) {
    return Math.min(1, (double) n * n / Math.pow(2, 129));
  }

  /** The method to use and why, with the run that uses it. */
  public static Recommendation recommend(Workload w, List<MethodEstimate> rows) {
    if (w.sharedState() && w.window() == null && !w.deletes()) {
      return new Recommendation(
          "shared Redis tier",
          "Workers that cannot route keys share "
              + "one exact seen-set in Redis: every key a worker has not met costs one pipelined "
              + "Redis command (no local filter can answer for other workers' keys). If the keys "
              + "can be routed instead, split by key (idem split, or --shard I/N) and plan each "
              + "shard alone: it needs no network round trips.",
          RecommendedRun.exact(ExactTierPlacement.Kind.SHARED, 0, 0));
    }
    return choose(w, rows);
  }

  private static Recommendation choose(Workload w, List<MethodEstimate> rows) {
    long n = w.distinct();
    String budget = w.memoryBytes() > 0 ? ByteSize.format(w.memoryBytes()) : "no budget given";
    if (w.window() != null) {
      MethodEstimate win = find(rows, "windowed");
      String size =
          win.memoryBytes() < 0
              ? "memory follows the keys of the open windows"
              : "about "
                  + ByteSize.format(win.memoryBytes())
                  + " for the open windows"
                  + (win.fits() ? "" : ", over the " + budget + " budget: split the stream by key");
      return new Recommendation(
          "windowed",
          "A stream deduplicated within "
              + human(w.window())
              + ": exact inside the window, "
              + size
              + ".",
          RecommendedRun.windowed(w.window()));
    }
    if (w.deletes()) {
      return deletable(w, rows, budget);
    }
    MethodEstimate inMemory = find(rows, MEMORY_TIER);
    MethodEstimate rocks = find(rows, ROCKSDB_TIER);
    MethodEstimate partitioned = find(rows, PARTITIONED);
    long set = JobMemory.exactSetBytes(n);
    String exactOf = "Exact, " + count(n) + " distinct keys, " + budget + ": ";
    String setTooLarge =
        "the exact set in memory ("
            + ByteSize.format(inMemory.memoryBytes())
            + " with the job's heap) does not fit";
    if (w.exact()) {
      if (inMemory.fits()) {
        return new Recommendation(
            inMemory.method(),
            exactOf
                + "the exact set ("
                + ByteSize.format(set)
                + ") and the job's working heap fit in "
                + ByteSize.format(inMemory.memoryBytes())
                + "; the set answers every record alone, with no filter in front.",
            RecommendedRun.exact(ExactTierPlacement.Kind.MEMORY, n, 0));
      }
      if (partitioned.fits()) {
        return new Recommendation(
            partitioned.method(),
            exactOf
                + setTooLarge
                + ", so the keys go to partition files (~"
                + ByteSize.format(partitioned.diskBytes())
                + " on disk at most), each judged within the budget, and a second read of the "
                + "inputs writes the records.",
            RecommendedRun.exact(ExactTierPlacement.Kind.PARTITIONED, 0, w.memoryBytes()));
      }
      if (rocks.fits()) {
        return new Recommendation(
            rocks.method(),
            exactOf
                + setTooLarge
                + ", so it goes to RocksDB on disk (~"
                + ByteSize.format(rocks.diskBytes())
                + ") behind a "
                + ByteSize.format(rocks.memoryBytes() - JobMemory.WORKING_HEAP)
                + " blocked Bloom filter that spares "
                + pct(1 - rocks.lookupsPerNewRecord())
                + " of new keys the disk lookup.",
            RecommendedRun.exact(ExactTierPlacement.Kind.ROCKSDB, n, 0));
      }
      MethodEstimate sort = find(rows, "external sort-merge");
      long sortMemory = sortMemory(w);
      if (!sort.fits()) {
        return new Recommendation(
            "none fits",
            "Exact, "
                + count(n)
                + " distinct keys: no "
                + "exact method fits "
                + budget
                + "; the smallest, external sort-merge, needs a heap of "
                + ByteSize.format(sort.memoryBytes())
                + " and "
                + ByteSize.format(sort.diskBytes())
                + " of temporary disk.",
            RecommendedRun.sortDedup(sortMemory));
      }
      long shards = (rocks.memoryBytes() + w.memoryBytes() - 1) / w.memoryBytes();
      return new Recommendation(
          sort.method(),
          exactOf
              + "even the two-tier filter ("
              + ByteSize.format(rocks.memoryBytes())
              + " with the job's heap) does not fit; external sort-merge stays within the budget ("
              + sort.note()
              + ", "
              + ByteSize.format(sort.diskBytes())
              + " of temporary space), or shard the keys "
              + "across "
              + shards
              + " workers.",
          RecommendedRun.sortDedup(sortMemory));
    }
    for (String name : List.of("blocked Bloom", "classic Bloom")) {
      MethodEstimate f = find(rows, name);
      if (f.fits()) {
        return new Recommendation(
            name,
            "Approximate at "
                + pct(w.fpp())
                + ", "
                + count(n)
                + " distinct keys, "
                + budget
                + ": a "
                + ByteSize.format(f.memoryBytes())
                + " "
                + name
                + " filter drops a new key with probability "
                + pct(f.fpp())
                + ".",
            RecommendedRun.approximate(
                n, w.fpp(), name.equals("classic Bloom") ? FilterType.BLOOM : null));
      }
    }
    long filterBudget = Math.max(8, w.memoryBytes() - JobMemory.WORKING_HEAP);
    double reachable = FilterMath.falsePositiveRate(n, filterBudget * 8);
    return new Recommendation(
        "classic Bloom",
        "Approximate at "
            + pct(w.fpp())
            + ", "
            + count(n)
            + " distinct keys: no filter at that rate fits "
            + budget
            + "; a filter of the whole "
            + "budget (less the job's heap) would drop "
            + pct(reachable)
            + " of new keys. Raise the memory, accept that "
            + "rate, or shard the keys.",
        RecommendedRun.approximate(
            n,
            Double.parseDouble(String.format(Locale.ROOT, "%.3g", Math.min(0.5, reachable))),
            FilterType.BLOOM));
  }

  private static Recommendation deletable(Workload w, List<MethodEstimate> rows, String budget) {
    List<String> order =
        w.exact()
            ? List.of("FingerprintSet", "HashSet<String>")
            : List.of("cuckoo 12-bit", "cuckoo 16-bit", "counting Bloom", "FingerprintSet");
    for (String name : order) {
      MethodEstimate m = find(rows, name);
      if (m.fits() && (w.exact() ? m.exact() : m.fpp() <= w.fpp())) {
        return new Recommendation(
            name,
            "Keys must be removable ("
                + budget
                + "): a "
                + ByteSize.format(m.memoryBytes())
                + " "
                + name
                + (m.exact() ? " stays exact" : " errs at " + pct(m.fpp()))
                + " and supports remove(key).",
            RecommendedRun.deletable(
                name.startsWith("cuckoo")
                    ? FilterType.CUCKOO
                    : name.startsWith("counting") ? FilterType.COUNTING : FilterType.EXACT,
                w.distinct(),
                m.exact() ? 0 : m.fpp()));
      }
    }
    return new Recommendation(
        "none fits",
        "Keys must be removable, but no deletable "
            + "structure for "
            + w.distinct()
            + " keys fits "
            + budget
            + ": shard the keys.",
        RecommendedRun.none());
  }

  private static String bloomName(FilterType t) {
    return (t == FilterType.BLOOM ? "classic" : t.displayName()) + " Bloom";
  }

  private static MethodEstimate find(List<MethodEstimate> rows, String method) {
    return rows.stream().filter(r -> r.method().equals(method)).findFirst().orElseThrow();
  }

  private static String count(long n) {
    return String.format("%,d", n);
  }

  private static String pct(double p) {
    return String.format("%.3g %%", 100 * p);
  }

  private static String human(java.time.Duration d) {
    long s = d.toSeconds();
    return s % 3600 == 0 ? s / 3600 + "h" : s % 60 == 0 ? s / 60 + "m" : s + "s";
  }

  /** The method to use, why, and the run that uses it. */
  public record Recommendation(String method, String reason, RecommendedRun run) {}
}
