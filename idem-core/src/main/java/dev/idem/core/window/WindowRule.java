package dev.idem.core.window;

import java.io.Serializable;
import java.util.Objects;

/**
 * The arithmetic of idem's windowed dedup on event times in milliseconds, in one place for every
 * implementation (the engine's {@code WindowedDeduplicator}, the Flink operator): which window a
 * time falls in, when a kept entry repeats, when an event is late, and when an entry can be
 * forgotten. The watermark is the caller's (the newest event time minus the allowed delay, or
 * Flink's).
 *
 * <ul>
 *   <li>{@link WindowKind#TUMBLING}: the window of {@code t} is ⌊t / W⌋; an event repeats an entry
 *       kept in the same window; a window's entries go when the watermark reaches its end +
 *       lateness, and an event of a window whose entries are gone is late.
 *   <li>{@link WindowKind#SLIDING}: an event repeats an entry kept at a time less than W away; an
 *       entry kept at {@code t0} goes when the watermark reaches {@code t0 + W + lateness}, and an
 *       event older than watermark − lateness is late.
 * </ul>
 *
 * <p>An entry's state key is its window (tumbling) or its time (sliding). Times near the ends of
 * the {@code long} range saturate instead of wrapping around, so an event at {@code Long.MAX_VALUE}
 * is never taken for one in the distant past. Immutable.
 */
public final class WindowRule implements Serializable {

  private static final long serialVersionUID = 1L;

  private final WindowKind kind;
  private final long size;
  private final long lateness;

  /**
   * @param sizeMillis W, at least 1
   * @param latenessMillis how long after the watermark passes an entry it is still kept, at least 0
   */
  public WindowRule(WindowKind kind, long sizeMillis, long latenessMillis) {
    this.kind = Objects.requireNonNull(kind, "kind");
    if (sizeMillis < 1) {
      throw new IllegalArgumentException(
          "the window must be at least 1 ms, got " + sizeMillis + " ms");
    }
    if (latenessMillis < 0) {
      throw new IllegalArgumentException(
          "the allowed lateness cannot be negative, got " + latenessMillis + " ms");
    }
    this.size = sizeMillis;
    this.lateness = latenessMillis;
  }

  public WindowKind kind() {
    return kind;
  }

  /** W in milliseconds. */
  public long sizeMillis() {
    return size;
  }

  /** The window ⌊t / W⌋ that time {@code t} falls in. */
  public long windowOf(long t) {
    return Math.floorDiv(t, size);
  }

  /** The state entry an event kept at {@code t} creates: its window, or its time. */
  public long stateKey(long t) {
    return kind == WindowKind.TUMBLING ? windowOf(t) : t;
  }

  /** True when an event at {@code t} repeats the kept entry {@code key} of its key. */
  public boolean covers(long key, long t) {
    return kind == WindowKind.TUMBLING ? key == windowOf(t) : Math.abs(t - key) < size;
  }

  /**
   * True when an event at {@code t} can no longer be judged under {@code watermark} ({@link
   * Long#MIN_VALUE}: no event seen yet).
   */
  public boolean isLate(long t, long watermark) {
    if (watermark == Long.MIN_VALUE) {
      return false;
    }
    return kind == WindowKind.TUMBLING
        ? expiry(windowOf(t)) <= watermark
        : saturatedAdd(t, lateness) < watermark;
  }

  /** The watermark at which entry {@code key} can go: no event that is not late can need it. */
  public long expiry(long key) {
    long end =
        kind == WindowKind.TUMBLING ? windowStart(saturatedAdd(key, 1)) : saturatedAdd(key, size);
    return saturatedAdd(end, lateness);
  }

  /**
   * The watermark at which every entry kept at a time in window {@code window} can go: for
   * implementations that keep entries in buckets of one window each.
   */
  public long windowExpiry(long window) {
    // the latest time of the window is just under its end, so its entries go by end + W
    return kind == WindowKind.TUMBLING
        ? expiry(window)
        : saturatedAdd(saturatedAdd(windowStart(saturatedAdd(window, 1)), size), lateness);
  }

  /**
   * The watermark that trails the newest event time by {@code maxDelayMillis} (the events' allowed
   * out-of-orderness); {@link Long#MIN_VALUE} before the first event.
   */
  public static long watermark(long maxEventTime, long maxDelayMillis) {
    return maxEventTime == Long.MIN_VALUE
        ? Long.MIN_VALUE
        : saturatedAdd(maxEventTime, -maxDelayMillis);
  }

  /** The first time of window {@code window}. */
  private long windowStart(long window) {
    long hi = Math.multiplyHigh(window, size);
    long lo = window * size;
    if ((hi == 0 && lo >= 0) || (hi == -1 && lo < 0)) {
      return lo;
    }
    return hi < 0 ? Long.MIN_VALUE : Long.MAX_VALUE;
  }

  /** {@code a + b}, clamped to the {@code long} range. */
  static long saturatedAdd(long a, long b) {
    long r = a + b;
    // overflow only when both have the same sign and the result's sign differs
    if (((a ^ r) & (b ^ r)) < 0) {
      return a < 0 ? Long.MIN_VALUE : Long.MAX_VALUE;
    }
    return r;
  }

  @Override
  public String toString() {
    return kind.name().toLowerCase(java.util.Locale.ROOT)
        + " "
        + size
        + " ms, lateness "
        + lateness
        + " ms";
  }
}
