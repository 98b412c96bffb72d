package dev.idem.engine.estimate;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idem.engine.estimate.DistinctKeyCounter.DistinctEstimate;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** The estimator's interval holds the true count as often as it claims (99 %), 1 k to 10 M. */
class DistinctKeyCounterTest {

  @Test
  void theTrueCountLiesInTheIntervalInAtLeast95PercentOfSeededTrials() {
    long[] sizes = {1_000, 10_000, 100_000, 1_000_000};
    int trials = 0;
    int inside = 0;
    double worst = 0;
    for (int t = 0; t < 100; t++) {
      long n = t < 96 ? sizes[t % sizes.length] : 10_000_000;
      SplittableRandom random = new SplittableRandom(t);
      DistinctKeyCounter counter = new DistinctKeyCounter();
      long[] repeat = new long[64];
      for (long i = 0; i < n; i++) {
        long hash = random.nextLong();
        counter.add(hash);
        // repeats never change the count
        repeat[(int) (i & 63)] = hash;
        if ((i & 7) == 0) {
          counter.add(repeat[random.nextInt(64)]);
        }
      }
      DistinctEstimate e = counter.estimate();
      trials++;
      if (e.low() <= n && n <= e.high()) {
        inside++;
      }
      worst = Math.max(worst, Math.abs(e.estimate() - n) / n);
    }
    assertThat(inside)
        .as("trials whose interval holds the truth, of %d", trials)
        .isGreaterThanOrEqualTo(95);
    // 0.61 % standard error: no trial should be off by more than 4 of them
    assertThat(worst).isLessThan(4 * DistinctKeyCounter.RELATIVE_STANDARD_ERROR);
  }

  @Test
  void extrapolationKeepsWhatWasSeenAndNeverExceedsTheRecords() {
    DistinctEstimate sample = new DistinctEstimate(1000, 990, 1010);
    DistinctEstimate whole = sample.extrapolate(0.25, 3000);
    assertThat(whole.low()).isEqualTo(990);
    assertThat(whole.high()).isEqualTo(3000);
    assertThat(whole.estimate()).isEqualTo(3000);
    assertThat(sample.extrapolate(0.5, 10_000).estimate()).isEqualTo(2000);
    assertThat(sample.extrapolate(1, 10_000)).isEqualTo(sample);
  }
}
