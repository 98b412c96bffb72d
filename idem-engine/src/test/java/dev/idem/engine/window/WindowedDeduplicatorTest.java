package dev.idem.engine.window;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idem.core.window.WindowKind;
import dev.idem.engine.Verdict;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;
import org.junit.jupiter.api.Test;

/** The documented semantics, checked against a brute force over the whole history. */
class WindowedDeduplicatorTest {

  /** One event: a key, and how its time moves from the previous event's (back jumps too). */
  record Step(int key, int dt) {}

  @Provide
  Arbitrary<List<Step>> streams() {
    Arbitrary<Integer> keys = Arbitraries.integers().between(0, 6);
    // mostly forward, some out of order within the delay, some far back (late)
    Arbitrary<Integer> dts =
        Arbitraries.frequencyOf(
            net.jqwik.api.Tuple.of(6, Arbitraries.integers().between(0, 12)),
            net.jqwik.api.Tuple.of(2, Arbitraries.integers().between(-15, -1)),
            net.jqwik.api.Tuple.of(1, Arbitraries.integers().between(-120, -16)));
    return Combinators.combine(keys, dts).as(Step::new).list().ofMaxSize(300);
  }

  /** The definitions in WindowedDeduplicator's documentation, over the whole history. */
  static List<Verdict> reference(
      List<Step> steps, WindowKind kind, long w, long delay, long lateness, long start) {
    List<long[]> kept = new ArrayList<>();
    List<Verdict> out = new ArrayList<>();
    long maxT = Long.MIN_VALUE;
    long t = start;
    for (Step s : steps) {
      t += s.dt();
      Verdict v;
      boolean late =
          maxT != Long.MIN_VALUE
              && (kind == WindowKind.TUMBLING
                  ? (Math.floorDiv(t, w) + 1) * w + lateness <= maxT - delay
                  : t + lateness < maxT - delay);
      if (late) {
        v = Verdict.LATE;
      } else {
        boolean dup = false;
        for (long[] k : kept) {
          if (k[0] == s.key()
              && (kind == WindowKind.TUMBLING
                  ? Math.floorDiv(k[1], w) == Math.floorDiv(t, w)
                  : Math.abs(t - k[1]) < w)) {
            dup = true;
          }
        }
        if (!dup) {
          kept.add(new long[] {s.key(), t});
        }
        v = dup ? Verdict.DUPLICATE : Verdict.KEPT;
      }
      maxT = Math.max(maxT, t);
      out.add(v);
    }
    return out;
  }

  @Property(tries = 400)
  void verdictsMatchTheDefinitions(
      @ForAll("streams") List<Step> steps,
      @ForAll WindowKind kind,
      @ForAll @IntRange(min = 1, max = 60) int window,
      @ForAll @IntRange(min = 0, max = 30) int delay,
      @ForAll @IntRange(min = 0, max = 30) int lateness,
      @ForAll @IntRange(min = -1000, max = 1000) int start) {
    WindowedDeduplicator.Builder b =
        WindowedDeduplicator.builder()
            .maxDelay(Duration.ofMillis(delay))
            .allowedLateness(Duration.ofMillis(lateness));
    WindowedDeduplicator d =
        (kind == WindowKind.TUMBLING
                ? b.tumbling(Duration.ofMillis(window))
                : b.sliding(Duration.ofMillis(window)))
            .build();
    List<Verdict> expected = reference(steps, kind, window, delay, lateness, start);
    long t = start;
    for (int i = 0; i < steps.size(); i++) {
      t += steps.get(i).dt();
      int key = steps.get(i).key();
      assertThat(d.check(key * 0x9E3779B97F4A7C15L, key, t))
          .as("event %d (key %d, t %d)", i, key, t)
          .isEqualTo(expected.get(i));
    }
    WindowStats s = d.stats();
    assertThat(s.events()).isEqualTo(steps.size());
    assertThat(s.kept() + s.duplicates() + s.late()).isEqualTo(steps.size());
  }

  @Test
  void theClickExampleOfTheDocumentation() {
    WindowedDeduplicator tumbling =
        WindowedDeduplicator.builder().tumbling(Duration.ofMinutes(10)).build();
    WindowedDeduplicator sliding =
        WindowedDeduplicator.builder().sliding(Duration.ofMinutes(10)).build();
    long tenOClock = 1_764_669_600_000L; // 2025-12-02T10:00:00Z, a multiple of 10 minutes
    long min = 60_000;
    for (WindowedDeduplicator d : List.of(tumbling, sliding)) {
      assertThat(d.check("user42/ad7", tenOClock + 2 * min)).isEqualTo(Verdict.KEPT);
      assertThat(d.check("user42/ad7", tenOClock + 7 * min + 30_000)).isEqualTo(Verdict.DUPLICATE);
    }
    assertThat(tumbling.check("user9/ad1", tenOClock + 9 * min)).isEqualTo(Verdict.KEPT);
    assertThat(tumbling.check("user9/ad1", tenOClock + 11 * min)).isEqualTo(Verdict.KEPT);
    assertThat(sliding.check("user9/ad1", tenOClock + 9 * min)).isEqualTo(Verdict.KEPT);
    assertThat(sliding.check("user9/ad1", tenOClock + 11 * min)).isEqualTo(Verdict.DUPLICATE);
  }

  @Test
  void overFiftyMillionEventsMemoryFollowsTheOpenWindows() {
    long window = Duration.ofMinutes(10).toMillis();
    long delay = Duration.ofSeconds(30).toMillis();
    long lateness = Duration.ofMinutes(1).toMillis();
    for (WindowKind kind : WindowKind.values()) {
      WindowedDeduplicator.Builder b =
          WindowedDeduplicator.builder()
              .maxDelay(Duration.ofMillis(delay))
              .allowedLateness(Duration.ofMillis(lateness));
      WindowedDeduplicator d =
          (kind == WindowKind.TUMBLING
                  ? b.tumbling(Duration.ofMillis(window))
                  : b.sliding(Duration.ofMillis(window)))
              .build();
      SplittableRandom random = new SplittableRandom(5);
      int events = 25_000_000; // per kind: 50 M in all
      long perMilli = 1; // 1,000 events a second of event time
      for (int i = 0; i < events; i++) {
        long t = i / perMilli - random.nextInt(20_000); // out of order by up to 20 s
        long key = random.nextDouble() < 0.05 && i > 1000 ? i - 1 - random.nextInt(1000) : i;
        d.check(key * 0x9E3779B97F4A7C15L, key, t);
      }
      WindowStats s = d.stats();
      // held keys are at most the events of the time span the open buckets cover
      long span =
          kind == WindowKind.TUMBLING
              ? window + delay + lateness + window
              : 3 * window + delay + lateness;
      assertThat(s.peakHeld()).as(kind + " peak").isLessThanOrEqualTo(span * perMilli + 20_000);
      assertThat(s.peakHeld()).as("far below all kept keys").isLessThan(s.kept() / 10);
      assertThat(s.held()).isLessThanOrEqualTo(s.peakHeld());
      assertThat(s.openBuckets()).isLessThanOrEqualTo(kind == WindowKind.TUMBLING ? 3 : 4);
    }
  }
}
