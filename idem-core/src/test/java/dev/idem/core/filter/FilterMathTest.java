package dev.idem.core.filter;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import net.jqwik.api.Assume;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.DoubleRange;
import net.jqwik.api.constraints.LongRange;
import org.junit.jupiter.api.Test;

class FilterMathTest {

  private static final double MIB = 1024.0 * 1024 * 8; // bits per MiB

  @Test
  void pinsArticle001Figures_100MillionKeysAtOneInAThousand() {
    long m = FilterMath.optimalBits(100_000_000L, 0.001);
    assertThat((double) m).isCloseTo(1.4378e9, within(0.0001e9));
    assertThat(m / MIB).isCloseTo(171.4, within(0.1));
    assertThat((double) m / 100_000_000L).isCloseTo(14.38, within(0.005));
    assertThat(FilterMath.optimalHashCount(100_000_000L, m)).isEqualTo(10);
  }

  @Test
  void pinsArticle004Figures_100MillionKeysAtOnePercent() {
    long m = FilterMath.optimalBits(100_000_000L, 0.01);
    assertThat((double) m).isCloseTo(9.585e8, within(0.001e8));
    assertThat(m / MIB).isCloseTo(114.3, within(0.1));
    assertThat(FilterMath.optimalHashCount(100_000_000L, m)).isEqualTo(7);
  }

  @Test
  void classicRateAtOptimumIsTheTarget() {
    long n = 100_000_000L;
    long m = FilterMath.optimalBits(n, 0.001);
    assertThat(FilterMath.falsePositiveRate(n, m, 10)).isCloseTo(0.001, within(0.00001));
    assertThat(FilterMath.falsePositiveRate(0, m, 10)).isZero();
  }

  @Property
  void inverseQuestionsAgreeWithTheForwardFormula(
      @ForAll @LongRange(min = 1_000, max = 10_000_000_000L) long n,
      @ForAll @DoubleRange(min = -9, max = -0.3) double log10p) {
    double p = Math.pow(10, log10p);
    Assume.that(n * -Math.log(p) / 0.48 < FilterMath.MAX_BITS);
    long m = FilterMath.optimalBits(n, p);
    // n for given m and p: m was rounded up from n, so the inverse gives n back (±1 for rounding)
    long capacity = FilterMath.capacity(m, p);
    assertThat(capacity).isBetween(n - 1, n + 1);
    // p for given m and n, with the best whole k: within a few percent of p (k is rounded)
    assertThat(FilterMath.falsePositiveRate(n, m)).isCloseTo(p, within(p * 0.06));
  }

  @Property(tries = 60)
  void blockedAndPartitionedLayoutsMeetTheTargetWithTheirOwnFormula(
      @ForAll @LongRange(min = 1, max = 1_000_000_000L) long n,
      @ForAll @DoubleRange(min = -7, max = -0.6) double log10p) {
    double p = Math.pow(10, log10p);
    Assume.that(n * -Math.log(p) / 0.48 * 1.4 < FilterMath.MAX_BITS);
    FilterLayout blocked = FilterMath.blockedLayout(n, p);
    assertThat(blocked.bitSize() % FilterMath.BLOCK_BITS).isZero();
    assertThat(blocked.expectedFpp()).isLessThanOrEqualTo(p);
    assertThat(FilterMath.blockedFalsePositiveRate(n, blocked.bitSize() / 512, blocked.hashCount()))
        .isEqualTo(blocked.expectedFpp());
    // minimal: one block fewer misses the target with the chosen k
    if (blocked.bitSize() > 512) {
      assertThat(
              FilterMath.blockedFalsePositiveRate(
                  n, blocked.bitSize() / 512 - 1, blocked.hashCount()))
          .isGreaterThan(p);
    }
    FilterLayout partitioned = FilterMath.partitionedLayout(n, p);
    assertThat(partitioned.bitSize() % partitioned.hashCount()).isZero();
    assertThat(partitioned.expectedFpp()).isLessThanOrEqualTo(p);
    // blocked pays for its single cache line in bits; classic is the floor for both
    assertThat(blocked.bitSize()).isGreaterThanOrEqualTo(FilterMath.optimalBits(n, p) - 1);
  }

  @Test
  void blockedRateIsAboveClassicAtEqualSize() {
    long n = 1_000_000;
    long blocks = 30_000;
    double blocked = FilterMath.blockedFalsePositiveRate(n, blocks, 9);
    double classic = FilterMath.falsePositiveRate(n, blocks * 512, 9);
    assertThat(blocked).isGreaterThan(classic * 1.1);
  }

  @Test
  void blockOccupancyMatchesTheMeanFillWhenTheBlockIsNearlyEmpty() {
    // one key in a block: k positions, the query needs all its k in that set, exact value known
    double[] t = BlockOccupancy.table(1, 3);
    assertThat(t[1]).isCloseTo(1.0 / 512, within(1e-15));
    // two keys, one position each: E[X]/512 where X is 1 or 2
    assertThat(t[2]).isCloseTo((1.0 / 512 * 1 + 511.0 / 512 * 2) / 512, within(1e-15));
  }

  @Test
  void rejectsImpossibleArgumentsWithAdvice() {
    assertThatThrownBy(() -> FilterMath.optimalBits(0, 0.01))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("must be positive, got 0");
    assertThatThrownBy(() -> FilterMath.optimalBits(10, 1.0))
        .hasMessageContaining("between 0 and 1")
        .hasMessageContaining("0.001 means 0.1 %");
    assertThatThrownBy(() -> FilterMath.optimalBits(10, 0)).hasMessageContaining("between 0 and 1");
    assertThatThrownBy(() -> FilterMath.optimalBits(10, Double.NaN))
        .hasMessageContaining("between 0 and 1");
    assertThatThrownBy(() -> FilterMath.optimalBits(100_000_000_000L, 1e-6))
        .hasMessageContaining("one filter holds at most 16.0 GiB")
        .hasMessageContaining("shards");
    assertThatThrownBy(() -> FilterMath.blockedLayout(100_000_000_000L, 1e-6))
        .hasMessageContaining("one filter holds at most");
  }
}
