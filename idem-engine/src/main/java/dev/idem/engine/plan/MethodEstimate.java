package dev.idem.engine.plan;

/**
 * One method's cost for a {@link Workload}.
 *
 * @param method the method's name, as the plan table shows it
 * @param memoryBytes memory the method holds
 * @param diskBytes disk it needs (state or temporary files), 0 for none
 * @param fpp expected rate at which a new key is taken for a duplicate (and dropped, unless an
 *     exact tier confirms it); 0 for exact structures
 * @param lookupsPerNewRecord exact-tier lookups a new record costs
 * @param exact whether the dedup result is exact
 * @param deletes whether keys can be removed
 * @param windows whether it answers "seen in the last W"
 * @param fits whether it fits the memory budget (true when no budget is given)
 * @param note a few words on what the numbers assume
 */
public record MethodEstimate(
    String method,
    long memoryBytes,
    long diskBytes,
    double fpp,
    double lookupsPerNewRecord,
    boolean exact,
    boolean deletes,
    boolean windows,
    boolean fits,
    String note) {

  /** Bits of memory per distinct key. */
  public double bitsPerKey(long distinct) {
    return 8.0 * memoryBytes / distinct;
  }
}
