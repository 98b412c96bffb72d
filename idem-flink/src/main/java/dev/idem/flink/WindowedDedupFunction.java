package dev.idem.flink;

import dev.idem.core.window.WindowKind;
import dev.idem.core.window.WindowRule;
import java.util.Iterator;
import java.util.Map;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.state.MapState;
import org.apache.flink.api.common.state.MapStateDescriptor;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.streaming.api.functions.KeyedProcessFunction;
import org.apache.flink.util.Collector;
import org.apache.flink.util.OutputTag;

/**
 * Windowed mode: per key, the kept windows (tumbling) or kept times (sliding) in a {@code
 * MapState}, each with an event-time timer that removes it once the watermark makes it useless.
 * There is no filter in front: a Bloom filter cannot forget, and the keyed state of a windowed job
 * already follows the open windows rather than the whole history.
 */
final class WindowedDedupFunction<K, T> extends KeyedProcessFunction<K, T, T> {

  private static final long serialVersionUID = 1L;
  static final String KEPT_STATE = "idem-window-kept";

  private final WindowRule rule;
  private final OutputTag<T> lateTag;
  private transient MapState<Long, Boolean> kept;
  private transient DedupMetrics metrics;

  /** {@code lateTag} may be null: late records are then counted and dropped. */
  WindowedDedupFunction(WindowRule rule, OutputTag<T> lateTag) {
    this.rule = rule;
    this.lateTag = lateTag;
  }

  @Override
  public void open(OpenContext openContext) {
    kept =
        getRuntimeContext()
            .getMapState(new MapStateDescriptor<>(KEPT_STATE, Types.LONG, Types.BOOLEAN));
    metrics = DedupMetrics.windowed(getRuntimeContext().getMetricGroup());
  }

  @Override
  public void processElement(T value, Context ctx, Collector<T> out) throws Exception {
    metrics.records.inc();
    Long time = ctx.timestamp();
    if (time == null) {
      throw new IllegalStateException(
          "IdemDedup windows need event time, and this record has "
              + "none: call assignTimestampsAndWatermarks(WatermarkStrategy...) on the stream (or "
              + "give the source a WatermarkStrategy) before IdemDedup");
    }
    long t = time;
    if (rule.isLate(t, ctx.timerService().currentWatermark())) {
      metrics.late.inc();
      if (lateTag != null) {
        ctx.output(lateTag, value);
      }
      return;
    }
    long key = rule.stateKey(t);
    // sliding: the scan also finds an entry at t itself, so a point read first would be a
    // second state access per record
    if (rule.kind() == WindowKind.SLIDING ? coveredByAnother(t) : kept.contains(key)) {
      metrics.duplicates.inc();
      return;
    }
    kept.put(key, Boolean.TRUE);
    ctx.timerService().registerEventTimeTimer(rule.expiry(key));
    metrics.kept.inc();
    out.collect(value);
  }

  /** Sliding windows: whether a kept time of this key lies less than W from {@code t}. */
  private boolean coveredByAnother(long t) throws Exception {
    for (Long keptTime : kept.keys()) {
      if (rule.covers(keptTime, t)) {
        return true;
      }
    }
    return false;
  }

  @Override
  public void onTimer(long timestamp, OnTimerContext ctx, Collector<T> out) throws Exception {
    Iterator<Map.Entry<Long, Boolean>> it = kept.iterator();
    while (it.hasNext()) {
      if (rule.expiry(it.next().getKey()) <= timestamp) {
        it.remove();
      }
    }
  }
}
