package dev.idem.engine.plan;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import dev.idem.core.filter.CountingBloomFilter;
import dev.idem.core.filter.CuckooFilter;
import dev.idem.core.filter.FilterType;
import dev.idem.core.filter.Filters;
import dev.idem.core.filter.FingerprintSet;
import dev.idem.core.filter.ScalableBloomFilter;
import dev.idem.engine.DedupMode;
import dev.idem.engine.state.ExactTierPlacement;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * The plan's numbers against the real structures and the worked examples of docs/DESIGN.md, section
 * 5.
 */
class PlannerTest {

  private static final long MIB = 1L << 20;

  private static Workload exact(long distinct, long memory) {
    return new Workload(distinct, distinct, memory, 0, null, 0, false, false, 36, 0);
  }

  private static MethodEstimate row(List<MethodEstimate> rows, String method) {
    return rows.stream().filter(r -> r.method().equals(method)).findFirst().orElseThrow();
  }

  @Test
  void memoryFiguresAreTheRealStructuresSizes() {
    long n = 20_000;
    double p = 0.01;
    Workload w = new Workload(n, n, 0, p, null, 0, false, false, 36, 0);
    List<MethodEstimate> rows = Planner.methods(w);
    assertThat(row(rows, "classic Bloom").memoryBytes())
        .isEqualTo(Filters.create(FilterType.BLOOM, n, p).bitSize() / 8);
    assertThat(row(rows, "blocked Bloom").memoryBytes())
        .isEqualTo(Filters.create(FilterType.BLOCKED, n, p).bitSize() / 8);
    assertThat(row(rows, "partitioned Bloom").memoryBytes())
        .isEqualTo(Filters.create(FilterType.PARTITIONED, n, p).bitSize() / 8);
    assertThat(row(rows, "counting Bloom").memoryBytes())
        .isEqualTo(CountingBloomFilter.create(n, p).bitSize() / 8);
    for (int bits : new int[] {8, 12, 16}) {
      assertThat(row(rows, "cuckoo " + bits + "-bit").memoryBytes())
          .isEqualTo(CuckooFilter.withFingerprintBits(n, bits).bitSize() / 8);
    }
    assertThat(row(rows, "FingerprintSet").memoryBytes())
        .isEqualTo(FingerprintSet.withExpectedSize(n).bitSize() / 8);
    // the job's memory tier: the set the job allocates for --expected n (the striped set alone,
    // no filter), and the job's working heap
    assertThat(row(rows, Planner.MEMORY_TIER).memoryBytes())
        .isEqualTo(
            Filters.forKeys(FilterType.EXACT_STRIPED, n, n, p).bitSize() / 8
                + JobMemory.WORKING_HEAP);
    assertThat(row(rows, Planner.ROCKSDB_TIER).memoryBytes())
        .isEqualTo(Filters.create(FilterType.BLOCKED, n, p).bitSize() / 8 + JobMemory.WORKING_HEAP);
    // the scalable row of a filter grown from 1,000 keys matches one that really grew
    ScalableBloomFilter grown =
        ScalableBloomFilter.builder().initialCapacity(1_000).falsePositiveRate(p).build();
    for (long i = 0; i < n; i++) {
      grown.put(i * 0x9E3779B97F4A7C15L, ~i * 0xC2B2AE3D27D4EB4FL);
    }
    assertThat(
            ScalableBloomFilter.builder()
                .initialCapacity(1_000)
                .falsePositiveRate(p)
                .bitSizeFor(grown.approximateCount()))
        .isEqualTo(grown.bitSize());
  }

  @Test
  void sourceArticleFigures() {
    // 1e8 keys at 0.1 %: about 171 MiB classic (Bloom 1970's formulas), k = 10
    Workload tight = new Workload(100_000_000, 100_000_000, 0, 0.001, null, 0, false, false, 36, 0);
    MethodEstimate classic = row(Planner.methods(tight), "classic Bloom");
    assertThat(classic.memoryBytes() / (double) MIB).isCloseTo(171.4, within(0.5));
    assertThat(classic.note()).isEqualTo("k = 10");
    // 1e8 at 1 %: about 114 MiB, k = 7
    Workload loose = new Workload(100_000_000, 100_000_000, 0, 0.01, null, 0, false, false, 36, 0);
    MethodEstimate onePercent = row(Planner.methods(loose), "classic Bloom");
    assertThat(onePercent.memoryBytes() / (double) MIB).isCloseTo(114.3, within(0.5));
    assertThat(onePercent.note()).isEqualTo("k = 7");
    // 1e8 UUIDs in a HashSet<String>: gigabytes (over 18 GB for 500 M ids)
    long uuids = row(Planner.methods(exact(100_000_000, 0)), "HashSet<String>").memoryBytes();
    assertThat(uuids).isBetween(8L << 30, 16L << 30);
  }

  @Test
  void theStringSetFigureMatchesAMeasuredHashSet() {
    int n = 300_000;
    Runtime rt = Runtime.getRuntime();
    long before = usedAfterGc(rt);
    Set<String> set = new HashSet<>();
    for (int i = 0; i < n; i++) {
      set.add(new UUID(i * 0x9E3779B97F4A7C15L, i).toString());
    }
    long measured = usedAfterGc(rt) - before;
    assertThat(set).hasSize(n);
    long predicted = StringSetSize.bytes(n, 36);
    assertThat((double) measured).isCloseTo(predicted, within(0.2 * predicted));
  }

  private static long usedAfterGc(Runtime rt) {
    for (int i = 0; i < 3; i++) {
      System.gc();
    }
    return rt.totalMemory() - rt.freeMemory();
  }

  @Test
  void recommendationsFollowTheBudget() {
    long n = 2_000_000_000L;
    // exact, 2 billion keys, 512 MiB or 8 GiB: the set (48 GiB) does not fit, the partitioned
    // method's files are judged one at a time within the budget
    Planner.Recommendation small = recommend(exact(n, 512 * MIB));
    assertThat(small.method()).isEqualTo(Planner.PARTITIONED);
    assertThat(small.run())
        .isEqualTo(RecommendedRun.exact(ExactTierPlacement.Kind.PARTITIONED, 0, 512 * MIB));
    Planner.Recommendation medium = recommend(exact(n, 8L << 30));
    assertThat(medium.run().exactTier()).isEqualTo(ExactTierPlacement.Kind.PARTITIONED);
    assertThat(medium.run().memoryBytes()).isEqualTo(8L << 30);
    // below the partitioned method's least heap, sort-merge, with runs of (34 - 32) / 2 MiB: the
    // heap holds a run and what is read and written beside it, and the job's working heap
    Planner.Recommendation tiny = recommend(exact(n, 34 * MIB));
    assertThat(tiny.method()).isEqualTo("external sort-merge");
    assertThat(tiny.run()).isEqualTo(RecommendedRun.sortDedup(1 * MIB));
    // 10 M keys in 1 GiB: everything in memory
    assertThat(recommend(exact(10_000_000, 1L << 30)).run().exactTier())
        .isEqualTo(ExactTierPlacement.Kind.MEMORY);
    // the memory tier needs its set and the job's heap: 7 M keys (a 144 MiB set) fit 256 MiB, a
    // budget of the set's size plus a little does not
    assertThat(recommend(exact(7_000_000, 256 * MIB)).method()).isEqualTo(Planner.MEMORY_TIER);
    long set = JobMemory.exactSetBytes(7_000_000);
    assertThat(recommend(exact(7_000_000, set + 16 * MIB)).method()).isEqualTo(Planner.PARTITIONED);
    assertThat(recommend(exact(7_000_000, set + JobMemory.WORKING_HEAP)).method())
        .isEqualTo(Planner.MEMORY_TIER);
    // approximate within a budget too small for the rate: says what the budget reaches
    Workload approx = new Workload(n, n, 512 * MIB, 0.001, null, 0, false, false, 36, 0);
    Planner.Recommendation r = recommend(approx);
    assertThat(r.reason()).contains("no filter at that rate fits");
    assertThat(r.run().mode()).isEqualTo(DedupMode.APPROXIMATE);
    assertThat(r.run().fpp()).isBetween(0.001, 0.5);
    // a stream: windowed
    Workload stream =
        new Workload(n, n, 0, 0, Duration.ofMinutes(10), 1_000_000, false, false, 36, 0);
    assertThat(recommend(stream).run().window()).isEqualTo(Duration.ofMinutes(10));
    // workers that share state: the Redis tier
    Workload shared = new Workload(n, n, 0, 0, null, 0, false, true, 36, 0);
    assertThat(recommend(shared).run().exactTier()).isEqualTo(ExactTierPlacement.Kind.SHARED);
    // deletes, approximate: a cuckoo filter
    Workload deletes = new Workload(n / 100, n / 100, 1L << 30, 0.001, null, 0, true, false, 36, 0);
    assertThat(recommend(deletes).method()).startsWith("cuckoo");
  }

  @Test
  void theJobChoosesTheTierThePlanChose() {
    // DedupJob's --exact-store auto asks JobMemory with the heap limit; the plan with the budget
    for (long n : new long[] {1_000, 1_000_000, 7_000_000, 100_000_000}) {
      for (long budget : new long[] {64 * MIB, 256 * MIB, 1L << 30, 8L << 30}) {
        boolean jobInMemory = JobMemory.memoryTier(n, false) <= budget;
        String planned = recommend(exact(n, budget)).method();
        assertThat(planned.equals(Planner.MEMORY_TIER))
            .as(n + " in " + budget)
            .isEqualTo(jobInMemory);
      }
    }
    // a count guessed from the input's size leaves room for the set to double
    assertThat(JobMemory.memoryTier(1_000_000, true))
        .isEqualTo(2 * JobMemory.exactSetBytes(1_000_000) + JobMemory.WORKING_HEAP);
  }

  @Test
  void impossibleNumbersAreRefusedWithWhatToDo() {
    assertThatThrownBy(() -> exact(0, 0)).hasMessageContaining("--distinct");
    assertThatThrownBy(() -> new Workload(10, 10, 0, 1.5, null, 0, false, false, 36, 0))
        .hasMessageContaining("--fpp");
  }

  private static Planner.Recommendation recommend(Workload w) {
    return Planner.recommend(w, Planner.methods(w));
  }
}
