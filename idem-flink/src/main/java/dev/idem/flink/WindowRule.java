package dev.idem.flink;

import java.io.Serializable;

/**
 * The definitions of idem's windowed dedup ({@code docs/WINDOWS.md}, {@code WindowedDeduplicator}
 * in idem-engine), as arithmetic on event times in milliseconds. The watermark is Flink's: the
 * job's {@code WatermarkStrategy} decides it, its bounded out-of-orderness playing the part of
 * idem's {@code --max-delay}.
 *
 * <ul>
 *   <li>Tumbling: the window of {@code t} is ⌊t / W⌋; a record is a duplicate when its key was
 *       kept earlier in the same window; the window's state goes when the watermark reaches its
 *       end + lateness, and a record of a window whose state is gone is late.
 *   <li>Sliding (TTL): a record is a duplicate when its key was kept at a time less than W away;
 *       a kept time {@code t0} is forgotten when the watermark reaches {@code t0 + W + lateness},
 *       and a record older than watermark − lateness is late.
 * </ul>
 *
 * <p>The state key of a kept record is its window (tumbling) or its time (sliding); an entry can
 * go once no record that is not late can need it, which is the time {@link #expiry} gives.
 */
final class WindowRule implements Serializable {

  private static final long serialVersionUID = 1L;

  private final boolean tumbling;
  private final long size;
  private final long lateness;

  WindowRule(boolean tumbling, long sizeMillis, long latenessMillis) {
    this.tumbling = tumbling;
    this.size = sizeMillis;
    this.lateness = latenessMillis;
  }

  /** Sliding: a record must be compared with every kept time of its key, not one entry. */
  boolean isSliding() {
    return !tumbling;
  }

  /** True when a record at {@code t} can no longer be judged under {@code watermark}. */
  boolean isLate(long t, long watermark) {
    if (watermark == Long.MIN_VALUE) {
      return false;
    }
    return tumbling ? expiry(stateKey(t)) <= watermark : sat(t, lateness) < watermark;
  }

  /** The state entry a kept record at {@code t} creates: its window, or its time. */
  long stateKey(long t) {
    return tumbling ? Math.floorDiv(t, size) : t;
  }

  /** True when a record at {@code t} repeats a kept state entry {@code key} of its key. */
  boolean covers(long key, long t) {
    return tumbling ? key == Math.floorDiv(t, size) : Math.abs(t - key) < size;
  }

  /** The watermark at which entry {@code key} can go: the event-time timer to set. */
  long expiry(long key) {
    long end = tumbling ? satMultiply(key + 1, size) : sat(key, size);
    return sat(end, lateness);
  }

  private static long sat(long a, long b) {
    long r = a + b;
    // overflow only when both have the same sign and the result's sign differs
    if (((a ^ r) & (b ^ r)) < 0) {
      return a < 0 ? Long.MIN_VALUE : Long.MAX_VALUE;
    }
    return r;
  }

  private static long satMultiply(long a, long b) {
    long hi = Math.multiplyHigh(a, b);
    long lo = a * b;
    if ((hi == 0 && lo >= 0) || (hi == -1 && lo < 0)) {
      return lo;
    }
    return hi < 0 ? Long.MIN_VALUE : Long.MAX_VALUE;
  }
}
