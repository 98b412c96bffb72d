package dev.idem.engine.neardup;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.SplittableRandom;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The MinHash estimate against its law: for sets at Jaccard similarity J, the number of agreeing
 * components of a {@code numPerm} signature is Binomial(numPerm, J) when the rows act as
 * independent random permutations. Fixed seeds make the tests repeatable; the bounds are at 4.5
 * standard deviations (or the binomial's own quantiles), so a correct MinHash fails about once in
 * 10⁵ seeds, while a biased or correlated one (rows sharing a permutation, a mixer that is not a
 * bijection, signatures compared on the wrong components) is far outside.
 */
class MinHashStatisticsTest {

  private static final int NUM_PERM = 128;
  private static final int PAIRS = 2000;

  @ParameterizedTest
  @ValueSource(doubles = {0.1, 0.5, 0.8, 0.95})
  void agreementsAreBinomialWithTheJaccardSimilarity(double s) {
    SplittableRandom random = new SplittableRandom(Double.doubleToLongBits(s));
    MinHasher hasher = new MinHasher(NUM_PERM, 42);
    long[] sa = new long[NUM_PERM];
    long[] sb = new long[NUM_PERM];
    long agreements = 0;
    double sumSquaredError = 0;
    int outsideInterval = 0;
    double j = 0;
    for (int p = 0; p < PAIRS; p++) {
      PlantedPairs pair = PlantedPairs.draw(random, s, 200);
      j = pair.jaccard();
      hasher.signature(pair.a(), sa);
      hasher.signature(pair.b(), sb);
      int k = 0;
      for (int i = 0; i < NUM_PERM; i++) {
        k += sa[i] == sb[i] ? 1 : 0;
      }
      agreements += k;
      sumSquaredError += (k - NUM_PERM * j) * (k - NUM_PERM * j);
      int[] interval = binomialInterval(NUM_PERM, j, 0.005);
      if (k < interval[0] || k > interval[1]) {
        outsideInterval++;
      }
    }
    // unbiased: the pooled fraction of agreeing components is J
    double[] ci = PlantedPairs.wilson(agreements, (long) PAIRS * NUM_PERM, 4.5);
    assertThat(j).isBetween(ci[0], ci[1]);
    // binomial spread: the mean squared error is numPerm·J(1−J), to within its sampling error
    double variance = sumSquaredError / PAIRS;
    double expected = NUM_PERM * j * (1 - j);
    assertThat(variance / expected).isBetween(0.8, 1.2);
    // and each estimate is inside its 99 % binomial interval about 99 % of the time
    double[] outside = PlantedPairs.wilson(outsideInterval, PAIRS, 4.5);
    assertThat(outside[0]).isLessThanOrEqualTo(0.01);
  }

  @ParameterizedTest
  @ValueSource(doubles = {0.3, 0.9})
  void theStoredEstimateAgreesWithTheFullWidthOne(double s) {
    SplittableRandom random = new SplittableRandom(7);
    MinHasher hasher = new MinHasher(NUM_PERM, 1);
    long[] sa = new long[NUM_PERM];
    long[] sb = new long[NUM_PERM];
    int[] a = new int[NUM_PERM];
    int[] b = new int[NUM_PERM];
    for (int p = 0; p < 200; p++) {
      PlantedPairs pair = PlantedPairs.draw(random, s, 100);
      hasher.signature(pair.a(), sa);
      hasher.signature(pair.b(), sb);
      int full = 0;
      for (int i = 0; i < NUM_PERM; i++) {
        full += sa[i] == sb[i] ? 1 : 0;
        a[i] = (int) (sa[i] >>> 32);
        b[i] = (int) (sb[i] >>> 32);
      }
      assertThat(Jaccard.estimate(a, 0, b, 0, NUM_PERM)).isEqualTo((double) full / NUM_PERM);
    }
  }

  /**
   * The central interval of Binomial(n, p) leaving at most {@code tail} on each side, from its
   * probability mass function.
   */
  static int[] binomialInterval(int n, double p, double tail) {
    double[] pmf = new double[n + 1];
    for (int k = 0; k <= n; k++) {
      pmf[k] = Math.exp(logChoose(n, k) + k * Math.log(p) + (n - k) * Math.log1p(-p));
    }
    int lo = 0;
    double below = 0;
    while (below + pmf[lo] <= tail) {
      below += pmf[lo++];
    }
    int hi = n;
    double above = 0;
    while (above + pmf[hi] <= tail) {
      above += pmf[hi--];
    }
    return new int[] {lo, hi};
  }

  private static double logChoose(int n, int k) {
    double r = 0;
    for (int i = 1; i <= k; i++) {
      r += Math.log(n - k + i) - Math.log(i);
    }
    return r;
  }
}
