package dev.idem.engine.plan;

import java.time.Duration;

/**
 * The answers to the five questions that choose a method (docs/DESIGN.md, section 5), as numbers:
 * how many records and distinct keys, how much memory, what error is acceptable, batch or stream,
 * deletes, shared state.
 *
 * @param records records in the input (at least {@code distinct})
 * @param distinct distinct keys (what filters are sized for: a filter sized from records wastes
 *     memory, one sized below its keys exceeds its rate was sizing from records instead)
 * @param memoryBytes the memory budget, or {@code 0} for none given
 * @param fpp the false-positive rate accepted, or {@code 0} when the result must be exact
 * @param window the stream's dedup window, or {@code null} for a batch ("ever seen")
 * @param keysPerWindow distinct keys in one window, or {@code 0} when unknown
 * @param deletes whether keys must be removable
 * @param sharedState whether several workers must share one state (e.g. Redis)
 * @param meanKeyBytes mean key size, for the string set and full-key stores
 * @param inputBytes uncompressed input size, for external sort; {@code 0} when unknown
 */
public record Workload(
    long records,
    long distinct,
    long memoryBytes,
    double fpp,
    Duration window,
    long keysPerWindow,
    boolean deletes,
    boolean sharedState,
    double meanKeyBytes,
    long inputBytes) {

  /** The filter rate of the exact methods' first tier when no rate is given. */
  public static final double EXACT_TIER_FPP = 0.001;

  public Workload {
    if (distinct < 1) {
      throw new IllegalArgumentException(
          "the distinct key count must be at least 1, got "
              + distinct
              + "; give --distinct N, or --sample INPUT to estimate it");
    }
    if (records < distinct) {
      records = distinct;
    }
    if (fpp < 0 || fpp >= 1) {
      throw new IllegalArgumentException("--fpp must be in (0, 1), got " + fpp);
    }
  }

  /** True when no new key may be lost. */
  public boolean exact() {
    return fpp == 0;
  }

  /** The filter rate to size filters for: the accepted one, or the exact tier's default. */
  public double filterFpp() {
    return exact() ? EXACT_TIER_FPP : fpp;
  }
}
