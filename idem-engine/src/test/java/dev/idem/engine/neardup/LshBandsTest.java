package dev.idem.engine.neardup;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.DoubleRange;
import net.jqwik.api.constraints.IntRange;
import org.junit.jupiter.api.Test;

class LshBandsTest {

  @Property
  void theSCurveRisesFromZeroToOne(
      @ForAll @IntRange(min = 1, max = 64) int b,
      @ForAll @IntRange(min = 1, max = 32) int r,
      @ForAll @DoubleRange(min = 0, max = 1) double s,
      @ForAll @DoubleRange(min = 0, max = 1) double t) {
    LshBands bands = new LshBands(b, r);
    assertThat(bands.probability(0)).isZero();
    assertThat(bands.probability(1)).isEqualTo(1);
    double lo = Math.min(s, t);
    double hi = Math.max(s, t);
    assertThat(bands.probability(lo)).isLessThanOrEqualTo(bands.probability(hi));
    assertThat(bands.probability(bands.halfPoint())).isCloseTo(0.5, within(1e-9));
  }

  @Property(tries = 40)
  void theChosenBandsUseAtMostNumPermAndBeatEveryOther(
      @ForAll @DoubleRange(min = 0.3, max = 0.95) double threshold,
      @ForAll @IntRange(min = 8, max = 160) int numPerm,
      @ForAll @IntRange(min = 1, max = 160) int otherB,
      @ForAll @IntRange(min = 1, max = 160) int otherR) {
    LshBands best = LshBands.optimal(threshold, numPerm);
    assertThat(best.components()).isLessThanOrEqualTo(numPerm);
    if (otherB * otherR <= numPerm) {
      LshBands other = new LshBands(otherB, otherR);
      assertThat(error(best, threshold)).isLessThanOrEqualTo(error(other, threshold));
    }
  }

  @Test
  void theChoiceCentresTheCurveNearTheThreshold() {
    for (double t : new double[] {0.5, 0.7, 0.8, 0.9}) {
      LshBands bands = LshBands.optimal(t, 128);
      // the weighted areas pull the 50 % point a little below t, never far
      assertThat(bands.halfPoint()).as("threshold %s: %s", t, bands).isCloseTo(t, within(0.1));
    }
  }

  @Test
  void theAreasAreTheIntegralsOfTheCurve() {
    // B = R = 1: P(s) = s, so FP = t²/2 and FN = (1 − t)²/2
    LshBands identity = new LshBands(1, 1);
    assertThat(identity.falsePositiveArea(0.8)).isCloseTo(0.32, within(1e-9));
    assertThat(identity.falseNegativeArea(0.8)).isCloseTo(0.02, within(1e-9));
    // B = 1, R = 2: P(s) = s², FP = t³/3
    assertThat(new LshBands(1, 2).falsePositiveArea(0.6)).isCloseTo(0.072, within(1e-9));
  }

  @Test
  void badParametersAreRefused() {
    assertThatThrownBy(() -> LshBands.optimal(1.2, 128)).hasMessageContaining("--threshold");
    assertThatThrownBy(() -> new LshBands(0, 4)).hasMessageContaining("--bands");
  }

  private static double error(LshBands b, double t) {
    return 0.5 * b.falsePositiveArea(t) + 0.5 * b.falseNegativeArea(t);
  }
}
