package dev.idem.engine.sort;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.stream.IntStream;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.RandomDistribution;

/** IndexSort orders like a stable comparison sort, whatever the spread of the radix keys. */
class IndexSortTest {

  /** Entries ordered by (radix key unsigned, secondary), radix key first. */
  record Entries(long[] radix, int[] secondary) implements IndexSort.Entries {
    @Override
    public long radixKey(int i) {
      return radix[i];
    }

    @Override
    public int compare(int i, int j) {
      int c = Long.compareUnsigned(radix[i], radix[j]);
      return c != 0 ? c : Integer.compare(secondary[i], secondary[j]);
    }
  }

  @Provide
  Arbitrary<long[]> radixKeys() {
    // uniform (fingerprints), few distinct values (repeats, shared prefixes), or extremes
    Arbitrary<Long> value =
        Arbitraries.oneOf(
            Arbitraries.longs(),
            Arbitraries.longs().between(0, 3),
            Arbitraries.of(Long.MIN_VALUE, -1L, 0L, 1L, Long.MAX_VALUE),
            Arbitraries.longs().between(0, 1000).map(v -> v << 40));
    return value
        .list()
        .ofMaxSize(3000)
        .withSizeDistribution(RandomDistribution.uniform())
        .map(l -> l.stream().mapToLong(Long::longValue).toArray());
  }

  @Property(tries = 200)
  void sortsLikeAStableComparisonSort(
      @ForAll("radixKeys") long[] radix,
      @ForAll boolean backwards,
      @ForAll("secondaries") List<Integer> seeds) {
    int n = radix.length;
    int[] secondary = new int[n];
    for (int i = 0; i < n; i++) {
      secondary[i] = seeds.isEmpty() ? 0 : seeds.get(i % seeds.size());
    }
    Entries e = new Entries(radix, secondary);
    int[] perm = new int[n];
    IndexSort.sort(e, n, perm, new int[n], new int[IndexSort.countsLength(n)], backwards);

    Comparator<Integer> full = (a, b) -> e.compare(a, b);
    Comparator<Integer> tie = backwards ? Comparator.reverseOrder() : Comparator.naturalOrder();
    Integer[] expected =
        IntStream.range(0, n).boxed().sorted(full.thenComparing(tie)).toArray(Integer[]::new);
    assertThat(Arrays.stream(perm).boxed().toArray(Integer[]::new)).isEqualTo(expected);
  }

  @Provide
  Arbitrary<List<Integer>> secondaries() {
    return Arbitraries.integers().between(0, 2).list().ofMaxSize(7);
  }
}
