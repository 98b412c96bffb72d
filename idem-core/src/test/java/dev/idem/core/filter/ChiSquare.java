package dev.idem.core.filter;

/** Pearson's chi-square goodness-of-fit against the uniform distribution. */
final class ChiSquare {

  private ChiSquare() {}

  static double statistic(long[] counts) {
    long total = 0;
    for (long c : counts) {
      total += c;
    }
    double expected = (double) total / counts.length;
    double sum = 0;
    for (long c : counts) {
      double d = c - expected;
      sum += d * d / expected;
    }
    return sum;
  }

  /**
   * Upper critical value for {@code df} degrees of freedom at the one-sided normal quantile {@code
   * z} (Wilson–Hilferty approximation; 3.29 is α = 0.0005).
   */
  static double critical(int df, double z) {
    double a = 2.0 / (9 * df);
    return df * Math.pow(1 - a + z * Math.sqrt(a), 3);
  }
}
