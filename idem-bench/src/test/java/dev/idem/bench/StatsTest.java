package dev.idem.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.util.Arrays;
import java.util.BitSet;
import java.util.HashSet;
import java.util.Set;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.DoubleRange;
import net.jqwik.api.constraints.Size;
import org.junit.jupiter.api.Test;

class StatsTest {

  @Test
  void medianOfAnOddCountIsTheMiddleValueAndOfAnEvenCountTheMeanOfTheTwo() {
    assertThat(Stats.median(9.0, 1.0, 5.0)).isEqualTo(5.0);
    assertThat(Stats.median(4.0, 1.0, 3.0, 2.0)).isEqualTo(2.5);
    assertThat(Stats.median(7.0)).isEqualTo(7.0);
    assertThat(Stats.median()).isNaN();
  }

  @Property
  void medianLiesBetweenTheExtremesWhateverTheOrder(
      @ForAll @Size(min = 1, max = 20) double[] values) {
    double m = Stats.median(values);
    assertThat(m)
        .isBetween(
            Arrays.stream(values).min().orElseThrow(), Arrays.stream(values).max().orElseThrow());
    double[] sorted = values.clone();
    Arrays.sort(sorted);
    assertThat(Stats.median(sorted)).isEqualTo(m);
    long below = Arrays.stream(values).filter(v -> v < m).count();
    long above = Arrays.stream(values).filter(v -> v > m).count();
    assertThat(below).isLessThanOrEqualTo(values.length / 2);
    assertThat(above).isLessThanOrEqualTo(values.length / 2);
  }

  @Test
  void speedupIsTheReferencesTimeOverTheRowsAndUnknownTimesGiveNaN() {
    assertThat(Stats.speedup(15, 10)).isEqualTo(1.5);
    assertThat(Stats.speedup(10, 20)).isEqualTo(0.5);
    assertThat(Stats.speedup(-1, 10)).isNaN();
    assertThat(Stats.speedup(10, 0)).isNaN();
  }

  @Property
  void speedupOfAAgainstBIsTheInverseOfBAgainstA(
      @ForAll @DoubleRange(min = 0.01, max = 1e4) double a,
      @ForAll @DoubleRange(min = 0.01, max = 1e4) double b) {
    assertThat(Stats.speedup(a, b) * Stats.speedup(b, a)).isCloseTo(1.0, within(1e-9));
  }

  @Test
  void precisionAndRecallCountTheRemovedThatShouldHaveBeen() {
    BitSet truth = BitSet.valueOf(new long[] {0b1111}); // 0..3
    BitSet removed = BitSet.valueOf(new long[] {0b110110}); // 1, 2, 4, 5
    Stats.PrecisionRecall pr = Stats.PrecisionRecall.of(removed, truth);
    assertThat(pr.precision()).isEqualTo(0.5);
    assertThat(pr.recall()).isEqualTo(0.5);
    assertThat(Stats.PrecisionRecall.of(new BitSet(), truth).precision()).isEqualTo(1.0);
    assertThat(Stats.PrecisionRecall.of(new BitSet(), truth).recall()).isEqualTo(0.0);
    assertThat(Stats.PrecisionRecall.of(truth, truth).recall()).isEqualTo(1.0);
    assertThat(Stats.PrecisionRecall.of(removed, new BitSet()).recall()).isEqualTo(1.0);
  }

  @Test
  void jaccardIsCommonOverUnion() {
    assertThat(Stats.jaccard(new long[] {1, 2, 3}, new long[] {2, 3, 4})).isEqualTo(0.5);
    assertThat(Stats.jaccard(new long[] {1, 2}, new long[] {1, 2})).isEqualTo(1.0);
    assertThat(Stats.jaccard(new long[] {1}, new long[] {2})).isEqualTo(0.0);
    assertThat(Stats.jaccard(new long[0], new long[0])).isEqualTo(1.0);
  }

  @Property
  void jaccardAgreesWithSetArithmetic(
      @ForAll @Size(max = 40) Set<Byte> x, @ForAll @Size(max = 40) Set<Byte> y) {
    Set<Byte> common = new HashSet<>(x);
    common.retainAll(y);
    Set<Byte> union = new HashSet<>(x);
    union.addAll(y);
    double expected = union.isEmpty() ? 1 : (double) common.size() / union.size();
    assertThat(Stats.jaccard(sorted(x), sorted(y))).isCloseTo(expected, within(1e-12));
  }

  private static long[] sorted(Set<Byte> s) {
    return s.stream().mapToLong(Byte::longValue).sorted().toArray();
  }

  @Test
  void clustersKeepTheFirstDocumentOfEachAndRemoveTheRest() {
    Stats.Clusters c = new Stats.Clusters(8);
    c.union(5, 2);
    c.union(7, 5);
    c.union(3, 6);
    BitSet removed = c.removed();
    assertThat(removed.stream().toArray()).containsExactly(5, 6, 7);
    assertThat(c.find(7)).isEqualTo(2);
  }
}
