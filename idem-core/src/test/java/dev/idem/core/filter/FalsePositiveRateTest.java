package dev.idem.core.filter;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Rates beyond the measurement every type gets from {@link MembershipFilterContract}: the types
 * sized for a target promise at most the target, and the interval that {@code idem filter verify}
 * reports is the Wilson score interval.
 */
class FalsePositiveRateTest {

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
