package dev.idem.engine.corpus;

import java.util.Map;

/**
 * How many units a Bloom filter removes by its false positives alone. A unit of m n-grams is
 * removed when at least k of them are reported seen, k the least count whose share reaches the
 * threshold (at least one); a new unit whose n-grams are all new is reported so with probability
 * P(Binomial(m, p) ≥ k) when each report errs with probability p. A paragraph is one key, so for
 * paragraphs that is p itself. The job adds it up over the units it judged, with p the rate the
 * filter had at the end (a filter's rate only grows), for the share of units the filter alone could
 * have removed: an upper bound on the removals beyond an exact run, in expectation.
 */
final class FalseRemovals {

  private FalseRemovals() {}

  /**
   * The expected share of units removed by false positives alone, at most.
   *
   * @param unitSizes units judged, by their number of keys
   */
  static double shareBound(Map<Integer, Long> unitSizes, double p, double threshold) {
    long units = 0;
    double expected = 0;
    for (Map.Entry<Integer, Long> e : unitSizes.entrySet()) {
      int m = e.getKey();
      units += e.getValue();
      expected += e.getValue() * tail(m, least(m, threshold), p);
    }
    return units == 0 ? p : expected / units;
  }

  /** The least count of m whose share is at least {@code threshold}, and at least 1. */
  static int least(int m, double threshold) {
    int k = (int) Math.max(1, Math.ceil(threshold * m - 1e-9));
    while (k > 1 && (double) (k - 1) / m >= threshold) {
      k--;
    }
    while (k <= m && (double) k / m < threshold) {
      k++;
    }
    return k;
  }

  /** P(Binomial(m, p) ≥ k). */
  static double tail(int m, int k, double p) {
    if (k <= 0) {
      return 1;
    }
    if (k > m || p <= 0) {
      return 0;
    }
    if (p >= 1) {
      return 1;
    }
    double ratio = p / (1 - p);
    if (k <= m * p) {
      // the tail holds most of the mass: 1 - P(X < k), summed down from k - 1
      double term =
          Math.exp(logChoose(m, k - 1) + (k - 1) * Math.log(p) + (m - k + 1) * Math.log1p(-p));
      double lower = 0;
      for (int j = k - 1; j >= 0 && term > 0; j--) {
        lower += term;
        term *= (j / (double) (m - j + 1)) / ratio;
      }
      return Math.max(0, 1 - lower);
    }
    double term = Math.exp(logChoose(m, k) + k * Math.log(p) + (m - k) * Math.log1p(-p));
    double sum = 0;
    for (int j = k; j <= m; j++) {
      sum += term;
      if (term < sum * 1e-16) {
        break;
      }
      term *= ((m - j) / (double) (j + 1)) * ratio;
    }
    return Math.min(1, sum);
  }

  private static double logChoose(int n, int k) {
    return logGamma(n + 1.0) - logGamma(k + 1.0) - logGamma(n - k + 1.0);
  }

  private static final double[] LANCZOS = {
    0.99999999999980993,
    676.5203681218851,
    -1259.1392167224028,
    771.32342877765313,
    -176.61502916214059,
    12.507343278686905,
    -0.13857109526572012,
    9.9843695780195716e-6,
    1.5056327351493116e-7
  };

  /** ln Γ(x) for x ≥ 0.5 (Lanczos, g = 7): about 15 significant digits. */
  static double logGamma(double x) {
    double y = x - 1;
    double a = LANCZOS[0];
    double t = y + 7.5;
    for (int i = 1; i < 9; i++) {
      a += LANCZOS[i] / (y + i);
    }
    return 0.5 * Math.log(2 * Math.PI) + (y + 0.5) * Math.log(t) - t + Math.log(a);
  }
}
