package dev.idem.flink;

import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeinfo.Types;

/**
 * Exact mode: tier 1 is the subtask's filter, tier 2 a {@code ValueState<Boolean>} per key (in
 * whatever state backend the job uses, RocksDB included). A key the filter proves new is written to
 * keyed state without reading it first; only a "maybe seen" costs a read, and a key keyed state has
 * not seen is kept (a false positive rescued). So nothing new is ever dropped, and reads per new
 * key are about the filter's false-positive rate.
 */
final class ExactDedupFunction<K, T> extends FilteredDedupFunction<K, T> {

  private static final long serialVersionUID = 1L;
  static final String SEEN_STATE = "idem-seen";

  private transient ValueState<Boolean> seen;

  ExactDedupFunction(long expectedKeys, double fpp, KeyFingerprinter<K> keys) {
    super(expectedKeys, fpp, keys);
  }

  @Override
  public void open(OpenContext openContext) throws Exception {
    super.open(openContext);
    seen = getRuntimeContext().getState(new ValueStateDescriptor<>(SEEN_STATE, Types.BOOLEAN));
  }

  @Override
  DedupMetrics createMetrics() {
    return DedupMetrics.exact(getRuntimeContext().getMetricGroup());
  }

  @Override
  boolean isFirst(boolean firstPut) throws Exception {
    if (!firstPut) {
      metrics.tier2Reads.inc();
      if (seen.value() != null) {
        return false;
      }
      metrics.falsePositivesRescued.inc();
    }
    seen.update(Boolean.TRUE);
    return true;
  }
}
