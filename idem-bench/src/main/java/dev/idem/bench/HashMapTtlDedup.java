package dev.idem.bench;

import dev.idem.engine.Verdict;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;

/**
 * The TTL map people write first: key → event time it was last kept; a key is a duplicate if it was
 * kept less than W away; when the watermark has moved on by a minute, one scan removes the entries
 * no event can need any more. It is given the same retention as idem's sliding window (W + allowed
 * lateness behind the watermark) so the two can agree on every event that is not late. It has no
 * notion of late events: one is checked like any other, against whatever the map still holds, and,
 * if kept, overwrites the key's time.
 */
final class HashMapTtlDedup implements WindowContender {

  private static final long PURGE_EVERY = 60_000;

  private final Map<String, Long> lastKept = new HashMap<>();
  private final long window;
  private final long maxDelay;
  private final long lateness;
  private long maxEventTime = Long.MIN_VALUE;
  private long nextPurge = Long.MIN_VALUE;
  private long peakHeld;

  HashMapTtlDedup(long window, long maxDelay, long lateness) {
    this.window = window;
    this.maxDelay = maxDelay;
    this.lateness = lateness;
  }

  @Override
  public Verdict check(byte[] key, int length, long time) {
    String k = new String(key, 0, length, StandardCharsets.US_ASCII);
    Long last = lastKept.get(k);
    Verdict v;
    if (last != null && Math.abs(time - last) < window) {
      v = Verdict.DUPLICATE;
    } else {
      lastKept.put(k, time);
      v = Verdict.KEPT;
    }
    if (time > maxEventTime) {
      maxEventTime = time;
      long watermark = time - maxDelay;
      if (watermark >= nextPurge) {
        peakHeld = Math.max(peakHeld, lastKept.size()); // the size only grows between purges
        long horizon = watermark - lateness - window;
        lastKept.values().removeIf(t -> t <= horizon);
        nextPurge = watermark + PURGE_EVERY;
      }
    }
    return v;
  }

  @Override
  public long held() {
    return lastKept.size();
  }

  @Override
  public long peakHeld() {
    return Math.max(peakHeld, lastKept.size());
  }

  @Override
  public Object state() {
    return lastKept;
  }
}
