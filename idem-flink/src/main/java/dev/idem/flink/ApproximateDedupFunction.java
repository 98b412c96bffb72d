package dev.idem.flink;

/**
 * Approximate mode: the subtask's filter alone, no keyed state. A key is kept when putting it
 * changes the filter; a new key whose positions were all set already (a false positive) is dropped,
 * with probability at most the filter's rate at its capacity. State is the filter, whatever the
 * number of keys.
 */
final class ApproximateDedupFunction<K, T> extends FilteredDedupFunction<K, T> {

  private static final long serialVersionUID = 1L;

  ApproximateDedupFunction(long expectedKeys, double fpp, KeyFingerprinter<K> keys) {
    super(expectedKeys, fpp, keys);
  }

  @Override
  DedupMetrics createMetrics() {
    return DedupMetrics.approximate(getRuntimeContext().getMetricGroup());
  }

  @Override
  boolean isFirst(boolean firstPut) {
    return firstPut;
  }
}
