package dev.idem.core.filter;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Invariant 2 of DESIGN.md: a filter's stated rate is its real rate. Each case measures the rate
 * on fresh keys and requires the theory for the real layout to lie in the 99.9 % interval (wide
 * enough that seven cases pass together whatever the seed, narrow enough to catch an error of a
 * few percent, let alone article 003's tenfold one). Inputs are fixed (seeded), so results
 * repeat.
 */
class FalsePositiveRateTest {

  private static final double Z999 = 3.2905;

  @ParameterizedTest(name = "{0} n={1} p={2}")
  @CsvSource({
    "BLOOM, 200000, 0.01, 3",
    "BLOCKED, 200000, 0.01, 3",
    "PARTITIONED, 200000, 0.01, 3",
    "BLOOM, 300000, 0.001, 4",
    "BLOCKED, 300000, 0.001, 4",
    "PARTITIONED, 300000, 0.001, 4",
    "BLOCKED, 2000, 0.05, 40",
  })
  void measuredRateMatchesTheFiltersOwnFormula(FilterType type, long n, double p, int trials) {
    FppVerifier.Report r = FppVerifier.verify(type, n, p, trials, 1234);
    double low = FppVerifier.wilson(r.falsePositives(), r.queries(), Z999, -1);
    double high = FppVerifier.wilson(r.falsePositives(), r.queries(), Z999, +1);
    assertThat(r.expectedFpp())
        .as("%s: theory vs measured %.6f [%.6f, %.6f]", type, r.measuredFpp(), low, high)
        .isBetween(low, high);
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource({"BLOCKED", "PARTITIONED"})
  void typesSizedForTheTargetPromiseAtMostTheTarget(FilterType type) {
    AbstractBloomFilter f = (AbstractBloomFilter) Filters.create(type, 1_000_000, 0.001);
    assertThat(f.falsePositiveRate(1_000_000)).isLessThanOrEqualTo(0.001);
  }

  @Test
  void wilsonIntervalMatchesAKnownValue() {
    // 10 successes in 1000 trials: 95 % Wilson score interval [0.005441, 0.018309]
    double z = FppVerifier.Z95;
    assertThat(FppVerifier.wilson(10, 1000, z, -1)).isCloseTo(0.005441, within(1e-6));
    assertThat(FppVerifier.wilson(10, 1000, z, +1)).isCloseTo(0.018309, within(1e-6));
    assertThat(FppVerifier.wilson(0, 1000, z, -1)).isCloseTo(0, within(1e-15));
  }
}
