package dev.idem.core.window;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.math.BigInteger;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.LongRange;
import org.junit.jupiter.api.Test;

/** The window arithmetic against exact (BigInteger) arithmetic and the definitions. */
class WindowRuleTest {

  private static final BigInteger MIN = BigInteger.valueOf(Long.MIN_VALUE);
  private static final BigInteger MAX = BigInteger.valueOf(Long.MAX_VALUE);

  @Provide
  Arbitrary<Long> anyTime() {
    // the ends of the range, where saturation matters, as often as ordinary times
    return Arbitraries.oneOf(
        Arbitraries.longs(),
        Arbitraries.longs().between(-1_000_000, 1_000_000),
        Arbitraries.longs().between(Long.MAX_VALUE - 1_000, Long.MAX_VALUE),
        Arbitraries.longs().between(Long.MIN_VALUE, Long.MIN_VALUE + 1_000));
  }

  @Property
  void saturatedAddIsTheExactSumClamped(@ForAll("anyTime") long a, @ForAll("anyTime") long b) {
    assertThat(WindowRule.saturatedAdd(a, b))
        .isEqualTo(clamp(BigInteger.valueOf(a).add(BigInteger.valueOf(b))));
  }

  @Property
  void tumblingEntriesExpireAtTheWindowsEndPlusLateness(
      @ForAll("anyTime") long t,
      @ForAll @LongRange(min = 1, max = Long.MAX_VALUE) long size,
      @ForAll @LongRange(min = 0, max = 1L << 40) long lateness) {
    WindowRule rule = new WindowRule(WindowKind.TUMBLING, size, lateness);
    long window = Math.floorDiv(t, size);
    long next = clamp(BigInteger.valueOf(window).add(BigInteger.ONE));
    long end = clamp(BigInteger.valueOf(next).multiply(BigInteger.valueOf(size)));

    assertThat(rule.windowOf(t)).isEqualTo(window);
    assertThat(rule.stateKey(t)).isEqualTo(window);
    assertThat(rule.expiry(window))
        .isEqualTo(clamp(BigInteger.valueOf(end).add(BigInteger.valueOf(lateness))));
    assertThat(rule.windowExpiry(window)).isEqualTo(rule.expiry(window));
    assertThat(rule.covers(window, t)).isTrue();
  }

  @Property
  void slidingEntriesExpireWAndLatenessAfterTheirTime(
      @ForAll("anyTime") long t,
      @ForAll @LongRange(min = 1, max = 1L << 40) long size,
      @ForAll @LongRange(min = 0, max = 1L << 40) long lateness) {
    WindowRule rule = new WindowRule(WindowKind.SLIDING, size, lateness);

    assertThat(rule.stateKey(t)).isEqualTo(t);
    assertThat(rule.expiry(t))
        .isEqualTo(
            clamp(
                BigInteger.valueOf(t)
                    .add(BigInteger.valueOf(size))
                    .add(BigInteger.valueOf(lateness))));
    // every entry of t's window is gone by the window's expiry
    assertThat(rule.windowExpiry(rule.windowOf(t))).isGreaterThanOrEqualTo(rule.expiry(t));
  }

  @Property
  void lateAndRepeatFollowTheDefinitions(
      @ForAll @LongRange(min = -500, max = 500) long t,
      @ForAll @LongRange(min = -500, max = 500) long kept,
      @ForAll @LongRange(min = -600, max = 600) long watermark,
      @ForAll @LongRange(min = 1, max = 50) long size,
      @ForAll @LongRange(min = 0, max = 50) long lateness) {
    WindowRule tumbling = new WindowRule(WindowKind.TUMBLING, size, lateness);
    WindowRule sliding = new WindowRule(WindowKind.SLIDING, size, lateness);
    long windowEnd = (Math.floorDiv(t, size) + 1) * size;

    assertThat(tumbling.isLate(t, watermark)).isEqualTo(windowEnd + lateness <= watermark);
    assertThat(sliding.isLate(t, watermark)).isEqualTo(t + lateness < watermark);
    assertThat(tumbling.isLate(t, Long.MIN_VALUE)).isFalse();
    assertThat(tumbling.covers(Math.floorDiv(kept, size), t))
        .isEqualTo(Math.floorDiv(kept, size) == Math.floorDiv(t, size));
    assertThat(sliding.covers(kept, t)).isEqualTo(Math.abs(t - kept) < size);
  }

  @Test
  void theWatermarkTrailsTheNewestEvent() {
    assertThat(WindowRule.watermark(Long.MIN_VALUE, 10)).isEqualTo(Long.MIN_VALUE);
    assertThat(WindowRule.watermark(1_000, 10)).isEqualTo(990);
    assertThat(WindowRule.watermark(Long.MIN_VALUE + 5, 10)).isEqualTo(Long.MIN_VALUE);
  }

  @Test
  void aWindowOfNothingIsRefused() {
    assertThatThrownBy(() -> new WindowRule(WindowKind.SLIDING, 0, 0))
        .hasMessageContaining("at least 1 ms");
    assertThatThrownBy(() -> new WindowRule(WindowKind.SLIDING, 10, -1))
        .hasMessageContaining("cannot be negative");
  }

  private static long clamp(BigInteger v) {
    return v.max(MIN).min(MAX).longValue();
  }
}
