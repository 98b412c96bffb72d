package dev.idem.engine.estimate;

import com.dynatrace.hash4j.distinctcount.UltraLogLog;

/**
 * Counts distinct keys approximately in 16 KiB: an UltraLogLog sketch (hash4j) of precision 14 fed
 * the first half of each key's 128-bit fingerprint, which is already a uniform 64-bit hash.
 *
 * <p>The relative standard error of its default estimator is about 0.782 / √(2^14) = 0.61 % for
 * large counts, and smaller for counts near or below 2^14 (hash4j's documentation). The interval
 * reported is the estimate ± {@value #Z} standard errors, a 99 % interval for the normal
 * approximation, so a planner that sizes from its upper end is rarely short.
 */
public final class DistinctKeyCounter {

  /** Sketch precision: 2^14 one-byte registers. */
  static final int PRECISION = 14;

  /** Relative standard error of the default estimator at {@link #PRECISION}. */
  public static final double RELATIVE_STANDARD_ERROR = 0.782 / Math.sqrt(1 << PRECISION);

  /** Standard errors on each side of the interval: 99 % for a normal error. */
  static final double Z = 2.576;

  private final UltraLogLog sketch = UltraLogLog.create(PRECISION);

  /** Adds a key by its fingerprint's first half. */
  public void add(long fingerprintHi) {
    sketch.add(fingerprintHi);
  }

  /** The estimate so far, with its 99 % interval. */
  public DistinctEstimate estimate() {
    double d = sketch.getDistinctCountEstimate();
    double margin = Z * RELATIVE_STANDARD_ERROR * d;
    return new DistinctEstimate(d, Math.max(0, d - margin), d + margin);
  }

  /**
   * An estimated count of distinct keys and the interval that holds the true count with about 99 %
   * probability.
   */
  public record DistinctEstimate(double estimate, double low, double high) {

    /** The estimate for the whole when this one saw {@code fraction} (0 to 1] of the input. */
    public DistinctEstimate extrapolate(double fraction, long recordsInWhole) {
      if (fraction >= 1) {
        return this;
      }
      // keys seen in the sample exist for sure; beyond it, new keys arrive at most as fast as
      // in the sample (duplicates only get likelier as more keys have been seen)
      double high = Math.min(recordsInWhole, this.high / fraction);
      return new DistinctEstimate(Math.min(high, estimate / fraction), low, high);
    }
  }
}
