package dev.idem.flink;

import dev.idem.core.window.WindowKind;
import dev.idem.core.window.WindowRule;
import java.time.Duration;
import java.util.Objects;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.api.java.functions.KeySelector;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.datastream.KeyedStream;
import org.apache.flink.streaming.api.datastream.SingleOutputStreamOperator;
import org.apache.flink.streaming.api.functions.KeyedProcessFunction;
import org.apache.flink.util.OutputTag;

/**
 * Deduplicates a Flink {@link DataStream}: the first record of each key passes, later ones are
 * dropped, exactly once across failures and rescaling when the job checkpoints.
 *
 * <pre>{@code
 * DataStream<Order> unique = IdemDedup.of(orders)
 *     .key(Order::id)
 *     .exact()                      // the default: nothing new dropped, nothing repeated
 *     .expectedKeys(100_000_000)    // sizes the filters in front of keyed state
 *     .build()
 *     .uid("dedup-orders");         // as for any stateful operator, for savepoints
 * }</pre>
 *
 * <p>Modes:
 *
 * <ul>
 *   <li>{@link #exact()}: a blocked Bloom filter per subtask (operator state) in front of a {@code
 *       ValueState<Boolean>} per key (keyed state, RocksDB included). Keyed state is read only for
 *       keys the filter cannot prove new: about {@link #falsePositiveRate} of new keys plus the
 *       duplicates.
 *   <li>{@link #approximate(double)}: the filter alone. State is the filter whatever the number of
 *       keys; a new key is dropped with probability at most {@code p} while at most {@code
 *       expectedKeys} keys have been seen. Never emits a key twice.
 *   <li>{@link #withinWindow(Duration)} / {@link #inTumblingWindows(Duration)}: a key repeats only
 *       within a window of event time, with state dropped by event-time timers (see {@code
 *       docs/WINDOWS.md} for the definitions); late records go to {@link
 *       #sideOutputLateData(OutputTag)} or are counted and dropped.
 * </ul>
 *
 * <p>Metrics, in the operator's group {@code idem}: {@code records}, {@code kept}, {@code
 * duplicates}; exact mode adds {@code tier2Reads} and {@code falsePositivesRescued}, filter modes
 * the gauges {@code filterExpectedFpp} and {@code filterBits}, windowed mode {@code late}.
 *
 * @param <T> the record type
 */
public final class IdemDedup<T> {

  /** The filter rate of exact mode unless {@link #falsePositiveRate} says otherwise. */
  public static final double DEFAULT_EXACT_FPP = 0.01;

  private enum Mode {
    EXACT,
    APPROXIMATE
  }

  private final DataStream<T> stream;
  private KeySelector<T, ?> keySelector;
  private Mode mode = Mode.EXACT;
  private double fpp = DEFAULT_EXACT_FPP;
  private long expectedKeys;
  private Duration window;
  private boolean tumbling;
  private Duration allowedLateness = Duration.ZERO;
  private OutputTag<T> lateTag;

  private IdemDedup(DataStream<T> stream) {
    this.stream = Objects.requireNonNull(stream, "stream");
  }

  /** Starts deduplicating {@code stream}; choose the key next. */
  public static <T> IdemDedup<T> of(DataStream<T> stream) {
    return new IdemDedup<>(stream);
  }

  /**
   * What makes two records the same (required). String and {@code byte[]} keys are hashed as their
   * bytes (UTF-8 for strings), other keys as the bytes of their Flink serializer.
   */
  public IdemDedup<T> key(KeySelector<T, ?> selector) {
    this.keySelector = Objects.requireNonNull(selector, "selector");
    return this;
  }

  /** Exact mode (the default): see the class documentation. */
  public IdemDedup<T> exact() {
    this.mode = Mode.EXACT;
    return this;
  }

  /**
   * Approximate mode: the filter alone; a new key is dropped with probability at most {@code
   * falsePositiveRate} while at most {@link #expectedKeys} keys have been seen.
   */
  public IdemDedup<T> approximate(double falsePositiveRate) {
    this.mode = Mode.APPROXIMATE;
    return falsePositiveRate(falsePositiveRate);
  }

  /**
   * The filter's false-positive rate at {@link #expectedKeys}: in exact mode the share of new keys
   * that cost a keyed-state read (default {@value #DEFAULT_EXACT_FPP}), in approximate mode the
   * share of new keys dropped.
   */
  public IdemDedup<T> falsePositiveRate(double p) {
    if (!(p > 0 && p < 1)) {
      throw new IllegalArgumentException(
          "the false-positive rate must be between 0 and 1 (exclusive), got "
              + p
              + "; 0.01 (1 %) is a common choice");
    }
    this.fpp = p;
    return this;
  }

  /**
   * How many distinct keys the whole job will see (required in exact and approximate mode). Each
   * subtask's filter is sized for its share, {@code n / parallelism}, when the job starts without
   * state. Too low a guess costs more keyed-state reads (exact) or more drops (approximate); never
   * a repeated record.
   */
  public IdemDedup<T> expectedKeys(long n) {
    if (n < 1) {
      throw new IllegalArgumentException(
          "expectedKeys must be at least 1, got "
              + n
              + "; give the number of distinct keys the job will see, a rough guess is fine");
    }
    this.expectedKeys = n;
    return this;
  }

  /**
   * Sliding (TTL) windows: a record repeats a key kept at an event time less than {@code size}
   * away. Needs event time (a {@code WatermarkStrategy} on the stream).
   */
  public IdemDedup<T> withinWindow(Duration size) {
    return window(size, false);
  }

  /**
   * Tumbling windows of {@code size}, aligned to the epoch like Flink's {@code
   * TumblingEventTimeWindows}: a record repeats a key kept earlier in the same window.
   */
  public IdemDedup<T> inTumblingWindows(Duration size) {
    return window(size, true);
  }

  private IdemDedup<T> window(Duration size, boolean isTumbling) {
    if (size == null || size.toMillis() < 1) {
      throw new IllegalArgumentException("the window must be at least 1 ms, got " + size);
    }
    this.window = size;
    this.tumbling = isTumbling;
    return this;
  }

  /** How long past the watermark a window's state is kept for records that arrive late. */
  public IdemDedup<T> allowedLateness(Duration lateness) {
    if (lateness == null || lateness.isNegative()) {
      throw new IllegalArgumentException("allowedLateness cannot be negative, got " + lateness);
    }
    this.allowedLateness = lateness;
    return this;
  }

  /**
   * Sends records too late to be judged to {@code tag} (read them with {@code getSideOutput(tag)}
   * on the result) instead of counting and dropping them.
   */
  public IdemDedup<T> sideOutputLateData(OutputTag<T> tag) {
    this.lateTag = Objects.requireNonNull(tag, "tag");
    return this;
  }

  /**
   * The deduplicated stream. Give it a {@code uid} so that savepoints can be restored after the job
   * changes.
   *
   * @throws IllegalStateException when the settings do not fit together, saying what to change
   */
  public SingleOutputStreamOperator<T> build() {
    if (keySelector == null) {
      throw new IllegalStateException(
          "call key(selector) first: IdemDedup needs to know what " + "makes two records the same");
    }
    return build(keySelector);
  }

  private <K> SingleOutputStreamOperator<T> build(KeySelector<T, K> selector) {
    KeyedStream<T, K> keyed = stream.keyBy(selector);
    KeyedProcessFunction<K, T, T> function;
    String name;
    if (window != null) {
      if (mode == Mode.APPROXIMATE) {
        throw new IllegalStateException(
            "windows are exact (keyed state with timers); drop "
                + "approximate(p), or drop the window for approximate dedup over all time");
      }
      if (expectedKeys != 0) {
        throw new IllegalStateException(
            "expectedKeys sizes a filter, which windowed mode does "
                + "not use (state follows the open windows); drop expectedKeys(n)");
      }
      function =
          new WindowedDedupFunction<>(
              new WindowRule(
                  tumbling ? WindowKind.TUMBLING : WindowKind.SLIDING,
                  window.toMillis(),
                  allowedLateness.toMillis()),
              lateTag);
      name = "IdemDedup(" + (tumbling ? "tumbling " : "within ") + window + ")";
    } else {
      if (lateTag != null || !allowedLateness.isZero()) {
        throw new IllegalStateException(
            "allowedLateness and sideOutputLateData apply to "
                + "windows; add withinWindow(size) or inTumblingWindows(size), or drop them");
      }
      if (expectedKeys == 0) {
        throw new IllegalStateException(
            "call expectedKeys(n) with the number of distinct keys "
                + "the job will see: it sizes the filter (a rough guess is fine)");
      }
      TypeSerializer<K> serializer =
          keyed.getKeyType().createSerializer(stream.getExecutionConfig().getSerializerConfig());
      KeyFingerprinter<K> keys = new KeyFingerprinter<>(serializer);
      function =
          mode == Mode.EXACT
              ? new ExactDedupFunction<>(expectedKeys, fpp, keys)
              : new ApproximateDedupFunction<>(expectedKeys, fpp, keys);
      name = "IdemDedup(" + mode.name().toLowerCase(java.util.Locale.ROOT) + ")";
    }
    return keyed.process(function, stream.getType()).name(name);
  }
}
