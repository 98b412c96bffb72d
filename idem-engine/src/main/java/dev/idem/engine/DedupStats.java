package dev.idem.engine;

/**
 * What a {@link Deduplicator} has seen.
 *
 * @param checked keys checked
 * @param kept keys seen for the first time
 * @param duplicates keys seen before
 * @param exactLookups lookups in the exact tier: one per "maybe" of the filter that the recent tier
 *     did not settle; per new key this comes out near the filter's false-positive rate
 * @param falsePositivesRescued new keys the filter called "maybe" and the exact tier kept
 * @param recentHits duplicates settled by the recent tier without an exact lookup
 */
public record DedupStats(
    long checked,
    long kept,
    long duplicates,
    long exactLookups,
    long falsePositivesRescued,
    long recentHits) {

  /** No keys yet. */
  public static final DedupStats ZERO = new DedupStats(0, 0, 0, 0, 0, 0);

  /** The sum of two stats, e.g. those restored from a checkpoint and this run's. */
  public DedupStats plus(DedupStats o) {
    return new DedupStats(
        checked + o.checked,
        kept + o.kept,
        duplicates + o.duplicates,
        exactLookups + o.exactLookups,
        falsePositivesRescued + o.falsePositivesRescued,
        recentHits + o.recentHits);
  }

  /** Exact-tier lookups caused by new keys, per new key: the filter's rate, measured. */
  public double lookupsPerNewKey() {
    return kept == 0 ? 0 : (double) falsePositivesRescued / kept;
  }
}
