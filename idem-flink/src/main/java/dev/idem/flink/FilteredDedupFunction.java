package dev.idem.flink;

import dev.idem.core.Fingerprint;
import dev.idem.core.filter.BlockedBloomFilter;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.metrics.Gauge;
import org.apache.flink.runtime.state.FunctionInitializationContext;
import org.apache.flink.runtime.state.FunctionSnapshotContext;
import org.apache.flink.streaming.api.checkpoint.CheckpointedFunction;
import org.apache.flink.streaming.api.functions.KeyedProcessFunction;
import org.apache.flink.util.Collector;

/**
 * What the exact and the approximate mode share: the subtask's filter in operator state, the key's
 * fingerprint and the counters. Subclasses decide whether a record is the first of its key.
 */
abstract class FilteredDedupFunction<K, T> extends KeyedProcessFunction<K, T, T>
    implements CheckpointedFunction {

  private static final long serialVersionUID = 1L;

  private final long expectedKeys;
  private final double fpp;
  private final KeyFingerprinter<K> keys;
  private transient SubtaskFilter tier1;
  transient DedupMetrics metrics;

  FilteredDedupFunction(long expectedKeys, double fpp, KeyFingerprinter<K> keys) {
    this.expectedKeys = expectedKeys;
    this.fpp = fpp;
    this.keys = keys;
  }

  @Override
  public void initializeState(FunctionInitializationContext context) throws Exception {
    tier1 =
        SubtaskFilter.restoreOrCreate(
            context.getOperatorStateStore(), getRuntimeContext().getTaskInfo(), expectedKeys, fpp);
  }

  @Override
  public void snapshotState(FunctionSnapshotContext context) throws Exception {
    tier1.snapshot();
  }

  @Override
  public void open(OpenContext openContext) throws Exception {
    metrics = createMetrics();
    BlockedBloomFilter filter = tier1.filter();
    metrics.group.gauge("filterExpectedFpp", (Gauge<Double>) filter::expectedFpp);
    metrics.group.gauge("filterBits", (Gauge<Long>) filter::bitSize);
  }

  /** The counters of this mode. */
  abstract DedupMetrics createMetrics();

  /**
   * True when this record is the first of its key; {@code firstPut} is true when putting the key
   * into the filter changed it, which proves the key new.
   */
  abstract boolean isFirst(boolean firstPut) throws Exception;

  @Override
  public final void processElement(T value, Context ctx, Collector<T> out) throws Exception {
    metrics.records.inc();
    Fingerprint f = keys.of(ctx.getCurrentKey());
    if (isFirst(tier1.filter().put(f.hi(), f.lo()))) {
      metrics.kept.inc();
      out.collect(value);
    } else {
      metrics.duplicates.inc();
    }
  }
}
