package dev.idem.engine.neardup;

import java.util.Arrays;
import java.util.SplittableRandom;

/**
 * Pairs of shingle-hash sets with a planted Jaccard similarity: a common part and two private parts
 * of equal size, drawn as random 64-bit hashes, so J = common / (common + 2 · private) exactly (up
 * to a 2⁻⁶⁴ chance of two draws colliding, which {@link #jaccard} would show).
 */
record PlantedPairs(long[] a, long[] b) {

  /**
   * A pair of sets with union size about {@code union} and similarity as near {@code s} as that
   * allows.
   */
  static PlantedPairs draw(SplittableRandom random, double s, int union) {
    int common = (int) Math.round(s * union);
    int own = (union - common) / 2;
    long[] shared = longs(random, common);
    long[] a = concat(shared, longs(random, own));
    long[] b = concat(shared, longs(random, own));
    Arrays.sort(a);
    Arrays.sort(b);
    return new PlantedPairs(Shingler.distinct(a), Shingler.distinct(b));
  }

  double jaccard() {
    return Jaccard.exact(a, b);
  }

  private static long[] longs(SplittableRandom random, int n) {
    long[] x = new long[n];
    for (int i = 0; i < n; i++) {
      x[i] = random.nextLong();
    }
    return x;
  }

  private static long[] concat(long[] x, long[] y) {
    long[] z = Arrays.copyOf(x, x.length + y.length);
    System.arraycopy(y, 0, z, x.length, y.length);
    return z;
  }

  /** The Wilson score interval of a proportion {@code k / n} at {@code z} standard deviations. */
  static double[] wilson(long k, long n, double z) {
    double p = (double) k / n;
    double z2 = z * z;
    double centre = (p + z2 / (2 * n)) / (1 + z2 / n);
    double half = z / (1 + z2 / n) * Math.sqrt(p * (1 - p) / n + z2 / (4.0 * n * n));
    return new double[] {centre - half, centre + half};
  }
}
