package dev.idem.engine.window;

import dev.idem.core.Fingerprint;
import dev.idem.core.Fingerprinter;
import dev.idem.core.window.WindowKind;
import dev.idem.core.window.WindowRule;
import dev.idem.engine.Verdict;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/**
 * "Was this key seen in the last W of event time?" for a stream, with memory that follows the open
 * windows rather than the total volume (docs/WINDOWS.md), in the words of Flink and Beam:
 *
 * <ul>
 *   <li><b>Watermark</b> = the largest event time seen − {@code maxDelay} (the out-of-orderness
 *       allowed). Events may arrive out of order within it.
 *   <li><b>Tumbling</b> windows of size W: the window of time t is ⌊t / W⌋ (aligned to the epoch);
 *       an event is a duplicate if its key was kept earlier in the same window. A window is
 *       forgotten once the watermark passes its end + {@code allowedLateness}; an event whose
 *       window is already forgotten is {@link Verdict#LATE}.
 *   <li><b>Sliding</b> (TTL, Beam's {@code Deduplicate.withDuration}): an event is a duplicate if
 *       an event of its key was kept before it with an event time less than W away. A kept event at
 *       t0 is forgotten once the watermark − {@code allowedLateness} passes t0 + W; an event older
 *       than watermark − {@code allowedLateness} is {@link Verdict#LATE}.
 * </ul>
 *
 * <p>Example (a stream engineer's): 10-minute windows, the same user clicking the same ad at
 * 10:02:00 and 10:07:30 — one click for both kinds; at 10:09:00 and 10:11:00 — two clicks in
 * tumbling windows (10:00–10:10 and 10:10–10:20), one in sliding (2 minutes apart).
 *
 * <p>State: keys kept in time buckets of W (exact 128-bit fingerprints with their event time);
 * whole buckets go when the watermark passes them. For a non-late event the answer is exactly what
 * the definitions above say over the whole history; only late events get {@code LATE}. Not
 * thread-safe.
 */
public final class WindowedDeduplicator {

  private final WindowRule rule;
  private final long maxDelay;
  private final Fingerprinter fingerprinter;
  private final TreeMap<Long, TimedFingerprints> buckets = new TreeMap<>();
  private long maxEventTime = Long.MIN_VALUE;
  private long held;
  private long peakHeld;
  private long events;
  private long kept;
  private long late;
  private final List<long[]> added = new ArrayList<>();
  private final List<Long> dropped = new ArrayList<>();
  private final boolean trackChanges;

  private WindowedDeduplicator(Builder b) {
    this.rule = new WindowRule(b.kind, b.size.toMillis(), b.allowedLateness.toMillis());
    this.maxDelay = b.maxDelay.toMillis();
    this.fingerprinter = b.fingerprinter;
    this.trackChanges = b.trackChanges;
  }

  /**
   * The bytes of the state that holds {@code keysPerWindow} keys in each of {@code buckets} open
   * buckets (one window width each): what {@code idem plan} quotes for a windowed job.
   */
  public static long stateBytesFor(long keysPerWindow, int buckets) {
    return buckets * TimedFingerprints.bytesFor(keysPerWindow);
  }

  /** A builder; the window (tumbling or sliding) is required. */
  public static Builder builder() {
    return new Builder();
  }

  /** Configures a {@link WindowedDeduplicator}. */
  public static final class Builder {
    private WindowKind kind;
    private Duration size;
    private Duration maxDelay = Duration.ZERO;
    private Duration allowedLateness = Duration.ZERO;
    private Fingerprinter fingerprinter = Fingerprinter.xxh3();
    private boolean trackChanges;

    private Builder() {}

    /** Tumbling windows of {@code size}, aligned to the epoch. */
    public Builder tumbling(Duration size) {
      return window(WindowKind.TUMBLING, size);
    }

    /** A key is a duplicate within {@code size} of a kept event of it. */
    public Builder sliding(Duration size) {
      return window(WindowKind.SLIDING, size);
    }

    private Builder window(WindowKind k, Duration s) {
      if (s.isNegative() || s.isZero() || s.toMillis() == 0) {
        throw new IllegalArgumentException("the window must be at least 1 ms, got " + s);
      }
      this.kind = k;
      this.size = s;
      return this;
    }

    /** How far out of order events may arrive: the watermark trails the newest event by it. */
    public Builder maxDelay(Duration d) {
      this.maxDelay = nonNegative(d, "maxDelay");
      return this;
    }

    /** How long after the watermark passes a window its state is still kept. */
    public Builder allowedLateness(Duration d) {
      this.allowedLateness = nonNegative(d, "allowedLateness");
      return this;
    }

    public Builder fingerprinter(Fingerprinter f) {
      this.fingerprinter = Objects.requireNonNull(f);
      return this;
    }

    /** Keep the changes since the last {@link #drainChanges} (for a job that checkpoints). */
    public Builder trackChanges() {
      this.trackChanges = true;
      return this;
    }

    public WindowedDeduplicator build() {
      if (kind == null) {
        throw new IllegalArgumentException("choose a window: tumbling(size) or sliding(size)");
      }
      return new WindowedDeduplicator(this);
    }

    private static Duration nonNegative(Duration d, String what) {
      if (d.isNegative()) {
        throw new IllegalArgumentException(what + " cannot be negative, got " + d);
      }
      return d;
    }
  }

  /** Checks the UTF-8 key at event time {@code eventTimeMillis}. */
  public Verdict check(CharSequence key, long eventTimeMillis) {
    Fingerprint f = fingerprinter.fingerprint(key.toString().getBytes(StandardCharsets.UTF_8));
    return check(f.hi(), f.lo(), eventTimeMillis);
  }

  /** Checks a fingerprint at event time {@code t} (milliseconds). */
  public Verdict check(long hi, long lo, long t) {
    events++;
    long watermark = watermark();
    if (rule.isLate(t, watermark)) {
      late++;
      return Verdict.LATE;
    }
    Verdict v = isDuplicate(hi, lo, t) ? Verdict.DUPLICATE : keep(hi, lo, t);
    if (t > maxEventTime) {
      maxEventTime = t;
      dropExpired(watermark());
    }
    return v;
  }

  /**
   * Whether an event of this key at time {@code t} would be a duplicate, changing nothing: {@link
   * #check} without keeping the key, counting the event or moving the clock.
   */
  public boolean contains(long hi, long lo, long t) {
    return !rule.isLate(t, watermark()) && isDuplicate(hi, lo, t);
  }

  private boolean isDuplicate(long hi, long lo, long t) {
    long b = rule.windowOf(t);
    if (rule.kind() == WindowKind.TUMBLING) {
      TimedFingerprints window = buckets.get(b);
      return window != null && window.timeOf(hi, lo) != TimedFingerprints.ABSENT;
    }
    // a kept time less than W away lies in this bucket or a neighbour
    for (long n = b - 1; n <= b + 1; n++) {
      TimedFingerprints bucket = buckets.get(n);
      if (bucket != null) {
        long t0 = bucket.timeOf(hi, lo);
        if (t0 != TimedFingerprints.ABSENT && rule.covers(t0, t)) {
          return true;
        }
      }
    }
    return false;
  }

  private Verdict keep(long hi, long lo, long t) {
    long b = rule.windowOf(t);
    buckets.computeIfAbsent(b, x -> new TimedFingerprints()).put(hi, lo, t);
    held++;
    peakHeld = Math.max(peakHeld, held);
    kept++;
    if (trackChanges) {
      added.add(new long[] {b, hi, lo, t});
    }
    return Verdict.KEPT;
  }

  /** Drops the buckets no future non-late event can need. */
  private void dropExpired(long watermark) {
    Iterator<Map.Entry<Long, TimedFingerprints>> it = buckets.entrySet().iterator();
    while (it.hasNext()) {
      Map.Entry<Long, TimedFingerprints> e = it.next();
      long b = e.getKey();
      if (rule.windowExpiry(b) > watermark) {
        break; // buckets are ordered by time
      }
      held -= e.getValue().size();
      if (trackChanges) {
        dropped.add(b);
      }
      it.remove();
    }
  }

  /** The current watermark, or {@link Long#MIN_VALUE} before the first event. */
  public long watermark() {
    return WindowRule.watermark(maxEventTime, maxDelay);
  }

  /** Largest event time seen ({@link Long#MIN_VALUE} before the first event). */
  public long maxEventTime() {
    return maxEventTime;
  }

  /** Counts so far. */
  public WindowStats stats() {
    return new WindowStats(
        events, kept, duplicates(), late, held, peakHeld, buckets.size(), watermark());
  }

  private long duplicates() {
    return events - kept - late;
  }

  // ---- durability: the job checkpoints the changes and restores from them

  /** Receives what changed since the last drain. */
  public interface ChangeSink {
    /** A key kept into bucket {@code bucket} at {@code time}. */
    void kept(long bucket, long hi, long lo, long time);

    /** Every key of bucket {@code bucket} was forgotten. */
    void dropped(long bucket);
  }

  /** Hands the changes since the last call to {@code sink}, in order, and forgets them. */
  public void drainChanges(ChangeSink sink) {
    for (long[] a : added) {
      sink.kept(a[0], a[1], a[2], a[3]);
    }
    for (long b : dropped) {
      sink.dropped(b);
    }
    added.clear();
    dropped.clear();
  }

  /**
   * Restores one kept key (the resume path: every entry of every open bucket, then {@link
   * #restoreClock}).
   */
  public void restoreKept(long hi, long lo, long time) {
    buckets.computeIfAbsent(rule.windowOf(time), x -> new TimedFingerprints()).put(hi, lo, time);
    held++;
    peakHeld = Math.max(peakHeld, held);
  }

  /** Restores the event-time clock and counts of a checkpoint. */
  public void restoreClock(long maxEventTime, WindowStats counts) {
    this.maxEventTime = maxEventTime;
    this.events = counts.events();
    this.kept = counts.kept();
    this.late = counts.late();
    this.peakHeld = Math.max(peakHeld, counts.peakHeld());
    this.added.clear();
    this.dropped.clear();
  }

  public WindowKind kind() {
    return rule.kind();
  }
}
