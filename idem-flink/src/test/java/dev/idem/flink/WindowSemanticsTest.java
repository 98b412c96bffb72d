package dev.idem.flink;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idem.engine.Verdict;
import dev.idem.engine.window.WindowedDeduplicator;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.apache.flink.api.common.eventtime.Watermark;
import org.apache.flink.api.common.eventtime.WatermarkGenerator;
import org.apache.flink.api.common.eventtime.WatermarkOutput;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.java.tuple.Tuple3;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.datastream.SingleOutputStreamOperator;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.flink.util.CloseableIterator;
import org.apache.flink.util.OutputTag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Windowed mode on a MiniCluster gives every event the verdict of the definitions in
 * docs/WINDOWS.md: checked against a brute force over the whole history, and against idem's own
 * {@link WindowedDeduplicator}, on random out-of-order streams with late events.
 */
class WindowSemanticsTest {

  @RegisterExtension static final MiniClusterExtension CLUSTER = TestJobs.miniCluster();

  /** An event: its position in the stream, its key, its event time. */
  private static Tuple3<Integer, Integer, Long> event(int seq, int key, long time) {
    return Tuple3.of(seq, key, time);
  }

  /**
   * The watermark idem's windowed dedup uses: after each event, the largest event time so far minus
   * the allowed out-of-orderness; so event {@code i} is judged under the watermark of events {@code
   * 0..i-1}, as in {@link WindowedDeduplicator}.
   */
  private static WatermarkStrategy<Tuple3<Integer, Integer, Long>> afterEachEvent(long delay) {
    return WatermarkStrategy.<Tuple3<Integer, Integer, Long>>forGenerator(
            ctx ->
                new WatermarkGenerator<>() {
                  private long max = Long.MIN_VALUE;

                  @Override
                  public void onEvent(
                      Tuple3<Integer, Integer, Long> e, long ts, WatermarkOutput out) {
                    max = Math.max(max, e.f2);
                    out.emitWatermark(new Watermark(max - delay));
                  }

                  @Override
                  public void onPeriodicEmit(WatermarkOutput out) {}
                })
        .withTimestampAssigner((e, ts) -> e.f2);
  }

  /** Runs the events through IdemDedup on a MiniCluster; the verdict of each, by position. */
  @SuppressWarnings("try") // Flink's CloseableIterator.close() may throw InterruptedException
  private static List<Verdict> flinkVerdicts(
      List<Tuple3<Integer, Integer, Long>> events,
      boolean tumbling,
      long window,
      long delay,
      long lateness)
      throws Exception {
    StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
    OutputTag<Tuple3<Integer, Integer, Long>> late =
        new OutputTag<>("late", Types.TUPLE(Types.INT, Types.INT, Types.LONG));
    DataStream<Tuple3<Integer, Integer, Long>> stream =
        env.fromData(events)
            .setParallelism(1)
            .assignTimestampsAndWatermarks(afterEachEvent(delay))
            .setParallelism(1);
    IdemDedup<Tuple3<Integer, Integer, Long>> dedup =
        IdemDedup.of(stream)
            .key(e -> e.f1)
            .allowedLateness(Duration.ofMillis(lateness))
            .sideOutputLateData(late);
    SingleOutputStreamOperator<Tuple3<Integer, Integer, Long>> kept =
        (tumbling
                ? dedup.inTumblingWindows(Duration.ofMillis(window))
                : dedup.withinWindow(Duration.ofMillis(window)))
            .build()
            .setParallelism(2);
    DataStream<String> tagged =
        kept.map(e -> "K" + e.f0)
            .returns(Types.STRING)
            .union(kept.getSideOutput(late).map(e -> "L" + e.f0).returns(Types.STRING));
    Map<Integer, Verdict> byPosition = new HashMap<>();
    try (CloseableIterator<String> it = tagged.executeAndCollect()) {
      while (it.hasNext()) {
        String s = it.next();
        Verdict v = s.charAt(0) == 'K' ? Verdict.KEPT : Verdict.LATE;
        assertThat(byPosition.put(Integer.parseInt(s.substring(1)), v))
            .as("emitted twice: %s", s)
            .isNull();
      }
    }
    List<Verdict> out = new ArrayList<>();
    for (int i = 0; i < events.size(); i++) {
      out.add(byPosition.getOrDefault(i, Verdict.DUPLICATE));
    }
    return out;
  }

  /** The definitions of docs/WINDOWS.md over the whole history, one event at a time. */
  static List<Verdict> bruteForce(
      List<Tuple3<Integer, Integer, Long>> events,
      boolean tumbling,
      long w,
      long delay,
      long lateness) {
    Map<Integer, List<Long>> keptTimes = new HashMap<>();
    List<Verdict> out = new ArrayList<>();
    long maxT = Long.MIN_VALUE;
    for (Tuple3<Integer, Integer, Long> e : events) {
      long t = e.f2;
      long watermark = maxT - delay;
      boolean late =
          maxT != Long.MIN_VALUE
              && (tumbling
                  ? (Math.floorDiv(t, w) + 1) * w + lateness <= watermark
                  : t + lateness < watermark);
      if (late) {
        out.add(Verdict.LATE);
      } else {
        List<Long> times = keptTimes.computeIfAbsent(e.f1, k -> new ArrayList<>());
        boolean dup =
            times.stream()
                .anyMatch(
                    t0 ->
                        tumbling
                            ? Math.floorDiv(t0, w) == Math.floorDiv(t, w)
                            : Math.abs(t - t0) < w);
        if (!dup) {
          times.add(t);
        }
        out.add(dup ? Verdict.DUPLICATE : Verdict.KEPT);
      }
      maxT = Math.max(maxT, t);
    }
    return out;
  }

  private static List<Verdict> library(
      List<Tuple3<Integer, Integer, Long>> events,
      boolean tumbling,
      long w,
      long delay,
      long lateness) {
    WindowedDeduplicator.Builder b =
        WindowedDeduplicator.builder()
            .maxDelay(Duration.ofMillis(delay))
            .allowedLateness(Duration.ofMillis(lateness));
    WindowedDeduplicator d =
        (tumbling ? b.tumbling(Duration.ofMillis(w)) : b.sliding(Duration.ofMillis(w))).build();
    List<Verdict> out = new ArrayList<>();
    for (Tuple3<Integer, Integer, Long> e : events) {
      out.add(d.check(e.f1 * 0x9E3779B97F4A7C15L, e.f1, e.f2));
    }
    return out;
  }

  /**
   * A clock that moves forward by 0 to 12 ms an event; 2 events in 9 are up to 15 ms behind it (out
   * of order), 1 in 9 is 16 to 120 ms behind (often late); 7 keys.
   */
  private static List<Tuple3<Integer, Integer, Long>> randomEvents(SplittableRandom r, int n) {
    List<Tuple3<Integer, Integer, Long>> events = new ArrayList<>();
    long clock = r.nextInt(-1000, 1001);
    for (int i = 0; i < n; i++) {
      clock += r.nextInt(0, 13);
      int kind = r.nextInt(9);
      long behind = kind < 6 ? 0 : kind < 8 ? r.nextInt(1, 16) : r.nextInt(16, 121);
      events.add(event(i, r.nextInt(7), clock - behind));
    }
    return events;
  }

  @ParameterizedTest(name = "seed {0}")
  @ValueSource(longs = {1, 2, 3, 4, 5, 6})
  void verdictsMatchTheDefinitionsOnRandomOutOfOrderStreams(long seed) throws Exception {
    SplittableRandom r = new SplittableRandom(seed);
    List<Tuple3<Integer, Integer, Long>> events = randomEvents(r, 300);
    long window = r.nextInt(1, 61);
    long delay = r.nextInt(0, 31);
    long lateness = r.nextInt(0, 31);
    for (boolean tumbling : new boolean[] {true, false}) {
      List<Verdict> expected = bruteForce(events, tumbling, window, delay, lateness);
      assertThat(library(events, tumbling, window, delay, lateness))
          .as("the library agrees with the definitions")
          .isEqualTo(expected);
      assertThat(expected)
          .as("the stream exercises every verdict")
          .contains(Verdict.KEPT, Verdict.DUPLICATE, Verdict.LATE);
      List<Verdict> actual = flinkVerdicts(events, tumbling, window, delay, lateness);
      for (int i = 0; i < events.size(); i++) {
        assertThat(actual.get(i))
            .as(
                "%s window %d, delay %d, lateness %d: event %s",
                tumbling ? "tumbling" : "sliding", window, delay, lateness, events.get(i))
            .isEqualTo(expected.get(i));
      }
    }
  }

  @Test
  void theClickExampleOfTheDocumentation() throws Exception {
    long ten = 1_764_669_600_000L; // 2025-12-02T10:00:00Z
    long min = 60_000;
    List<Tuple3<Integer, Integer, Long>> clicks =
        List.of(
            event(0, 42, ten + 2 * min), event(1, 42, ten + 7 * min + 30_000),
            event(2, 9, ten + 9 * min), event(3, 9, ten + 11 * min),
            event(4, 42, ten + 30 * min), event(5, 9, ten + min));
    Verdict k = Verdict.KEPT;
    Verdict d = Verdict.DUPLICATE;
    Verdict l = Verdict.LATE;
    assertThat(flinkVerdicts(clicks, true, 10 * min, 0, 0)).containsExactly(k, d, k, k, k, l);
    assertThat(flinkVerdicts(clicks, false, 10 * min, 0, 0)).containsExactly(k, d, k, d, k, l);
    // 30 minutes of out-of-orderness: the last click is in time, a duplicate of the third
    assertThat(flinkVerdicts(clicks, true, 10 * min, 30 * min, 0))
        .containsExactly(k, d, k, k, k, d);
  }
}
