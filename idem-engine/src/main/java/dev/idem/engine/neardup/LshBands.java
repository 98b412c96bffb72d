package dev.idem.engine.neardup;

import java.util.Locale;

/**
 * Locality-sensitive hashing of MinHash signatures by banding: the first {@code bands × rows}
 * components are cut into {@code bands} bands of {@code rows} components, and two documents are
 * candidates when they agree on every component of at least one band. Since components agree
 * independently with probability s (the Jaccard similarity), a pair at similarity s is a candidate
 * with probability
 *
 * <pre>P(candidate | s) = 1 − (1 − s^R)^B</pre>
 *
 * the S-curve, for B bands of R rows. Its steepest part is near its 50 % point, s½ = (1 −
 * 0.5^(1/B))^(1/R).
 *
 * @param bands B
 * @param rows R
 */
public record LshBands(int bands, int rows) {

  /**
   * Weights of the false-positive and false-negative areas when choosing B and R (datasketch's).
   */
  static final double FALSE_POSITIVE_WEIGHT = 0.5;

  static final double FALSE_NEGATIVE_WEIGHT = 0.5;

  /** Permutations when neither {@code --num-perm} nor {@code --bands}/{@code --rows} is given. */
  public static final int DEFAULT_PERMUTATIONS = 128;

  private static final int MAX_PERMUTATIONS = 1024;

  /** Intervals of the Simpson's rule that integrates the S-curve (an even number). */
  private static final int INTERVALS = 200;

  public LshBands {
    if (bands < 1 || rows < 1) {
      throw new IllegalArgumentException(
          "--bands and --rows must be at least 1, got " + bands + " and " + rows);
    }
  }

  /**
   * The permutations a near-dup job signs with, from its options ({@code null}: not given): {@code
   * --num-perm}, else {@code --bands} × {@code --rows}, else {@value #DEFAULT_PERMUTATIONS}.
   */
  public static int permutations(Integer numPerm, Integer bands, Integer rows) {
    if ((bands == null) != (rows == null)) {
      throw new IllegalArgumentException(
          "--bands and --rows go together: give both, or neither to have them chosen from "
              + "--threshold");
    }
    int perms = numPerm != null ? numPerm : bands != null ? bands * rows : DEFAULT_PERMUTATIONS;
    if (perms < 1 || perms > MAX_PERMUTATIONS) {
      throw new IllegalArgumentException(
          "--num-perm must be from 1 to " + MAX_PERMUTATIONS + ", got " + perms);
    }
    return perms;
  }

  /**
   * The bands of a near-dup job, from its options: {@code --bands} × {@code --rows} when given
   * ({@code null}: not), else {@link #optimal} for the threshold and {@code numPerm} (from {@link
   * #permutations}).
   */
  public static LshBands fromOptions(Integer bands, Integer rows, int numPerm, double threshold) {
    if (bands == null) {
      return optimal(threshold, numPerm);
    }
    LshBands given = new LshBands(bands, rows);
    given.requireWithin(numPerm);
    return given;
  }

  /** Refuses bands that need more components than a signature of {@code numPerm} has. */
  void requireWithin(int numPerm) {
    if (components() > numPerm) {
      throw new IllegalArgumentException(
          "--bands × --rows ("
              + bands
              + " × "
              + rows
              + " = "
              + components()
              + ") is more than --num-perm "
              + numPerm);
    }
  }

  /** P(candidate | s) = 1 − (1 − s^R)^B. */
  public double probability(double s) {
    return 1 - Math.pow(1 - Math.pow(s, rows), bands);
  }

  /** The similarity at which a pair is a candidate with probability 1/2. */
  public double halfPoint() {
    return Math.pow(1 - Math.pow(0.5, 1.0 / bands), 1.0 / rows);
  }

  /** Components used: B × R. */
  public int components() {
    return bands * rows;
  }

  /**
   * The B and R, with B × R ≤ numPerm, that minimise the weighted error of the S-curve around the
   * threshold t:
   *
   * <pre>
   * FP(B, R) = ∫₀ᵗ P(candidate | s) ds        (pairs below t that become candidates)
   * FN(B, R) = ∫ₜ¹ (1 − P(candidate | s)) ds  (pairs above t that do not)
   * error    = 0.5 · FP + 0.5 · FN
   * </pre>
   *
   * with similarities taken as uniform on [0, 1], as datasketch's {@code MinHashLSH} chooses them.
   * Every B from 1 to numPerm is tried with every R up to numPerm / B; the integrals are by
   * Simpson's rule. Ties go to the smaller B (fewer band tables).
   */
  public static LshBands optimal(double threshold, int numPerm) {
    if (!(threshold > 0 && threshold < 1)) {
      throw new IllegalArgumentException("--threshold must be between 0 and 1, got " + threshold);
    }
    LshBands best = null;
    double bestError = Double.POSITIVE_INFINITY;
    for (int b = 1; b <= numPerm; b++) {
      for (int r = 1; r <= numPerm / b; r++) {
        LshBands candidate = new LshBands(b, r);
        double error =
            FALSE_POSITIVE_WEIGHT * candidate.falsePositiveArea(threshold)
                + FALSE_NEGATIVE_WEIGHT * candidate.falseNegativeArea(threshold);
        if (error < bestError) {
          bestError = error;
          best = candidate;
        }
      }
    }
    return best;
  }

  /** ∫₀ᵗ P(candidate | s) ds. */
  double falsePositiveArea(double t) {
    return simpson(0, t, false);
  }

  /** ∫ₜ¹ (1 − P(candidate | s)) ds. */
  double falseNegativeArea(double t) {
    return simpson(t, 1, true);
  }

  private double simpson(double from, double to, boolean complement) {
    double h = (to - from) / INTERVALS;
    double sum = 0;
    for (int i = 0; i <= INTERVALS; i++) {
      double p = probability(from + i * h);
      double f = complement ? 1 - p : p;
      sum += f * (i == 0 || i == INTERVALS ? 1 : i % 2 == 1 ? 4 : 2);
    }
    return sum * h / 3;
  }

  @Override
  public String toString() {
    return String.format(
        Locale.ROOT, "%d bands × %d rows (S-curve 50 %% at s = %.3f)", bands, rows, halfPoint());
  }
}
