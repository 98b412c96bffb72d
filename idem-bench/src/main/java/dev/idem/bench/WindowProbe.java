package dev.idem.bench;

import dev.idem.core.Fingerprinter;
import dev.idem.engine.Verdict;
import dev.idem.engine.window.WindowedDeduplicator;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;

/**
 * One contender of the window scenario over the {@link ClickStream}, in a JVM of its own: {@code
 * WindowProbe CONTENDER EVENTS timed|state}. Timed: the loop alone on the clock. State: the used
 * heap after full collections, 20 times along the stream, less the same before the contender
 * existed (the peak is the state it held). Prints one {@code RESULT} line of {@code name=value}
 * words: speed, peak entries held, collections, and the verdicts per generated kind, with a
 * checksum of the kept events that are not late.
 */
public final class WindowProbe {

  /** "Was this key seen in the last W of event time?" */
  interface Contender {
    Verdict check(byte[] key, int length, long time);

    long peakHeld();
  }

  private WindowProbe() {}

  public static void main(String[] args) throws InterruptedException {
    Contender c = create(args[0]);
    long n = Long.parseLong(args[1]);
    boolean state = args[2].equals("state");
    long before = state ? usedAfterGc() : 0;
    long peakHeap = 0;
    ClickStream stream = new ClickStream();
    long[][] counts = new long[ClickStream.Kind.values().length][Verdict.values().length];
    long checksum = 0;
    long gc0 = gcMillis();
    long t0 = System.nanoTime();
    for (long i = 0; i < n; i++) {
      stream.next();
      Verdict v = c.check(stream.key, stream.keyLength, stream.time);
      counts[stream.kind.ordinal()][v.ordinal()]++;
      if (v == Verdict.KEPT && !stream.kind.late()) {
        checksum += mix(i);
      }
      if (state && (i + 1) % Math.max(1, n / 20) == 0) {
        peakHeap = Math.max(peakHeap, usedAfterGc() - before);
      }
    }
    double seconds = (System.nanoTime() - t0) / 1e9;
    StringBuilder out = new StringBuilder("RESULT");
    out.append(String.format(Locale.ROOT, " events_per_s=%.0f", n / seconds));
    out.append(" peak_held=").append(c.peakHeld());
    out.append(" gc_ms=").append(gcMillis() - gc0);
    out.append(" peak_state_mib=").append(peakHeap >> 20);
    out.append(" checksum=").append(checksum);
    for (ClickStream.Kind k : ClickStream.Kind.values()) {
      for (Verdict v : Verdict.values()) {
        out.append(' ').append(k).append('.').append(v).append('=');
        out.append(counts[k.ordinal()][v.ordinal()]);
      }
    }
    System.out.println(out);
  }

  static Contender create(String name) {
    return switch (name) {
      case "idem-sliding" ->
          idem(WindowedDeduplicator.builder().sliding(Duration.ofMillis(ClickStream.WINDOW)));
      case "idem-tumbling" ->
          idem(WindowedDeduplicator.builder().tumbling(Duration.ofMillis(ClickStream.WINDOW)));
      case "hashmap-ttl" -> new HashMapTtl();
      default -> throw new IllegalArgumentException("unknown contender " + name);
    };
  }

  /** idem's windowed deduplicator, fed the key's fingerprint as {@code idem dedup} feeds it. */
  private static Contender idem(WindowedDeduplicator.Builder builder) {
    WindowedDeduplicator d =
        builder
            .maxDelay(Duration.ofMillis(ClickStream.MAX_DELAY))
            .allowedLateness(Duration.ofMillis(ClickStream.LATENESS))
            .build();
    Fingerprinter fp = Fingerprinter.xxh3();
    long[] f = new long[2];
    return new Contender() {
      @Override
      public Verdict check(byte[] key, int length, long time) {
        fp.fingerprintInto(key, 0, length, f, 0);
        return d.check(f[0], f[1], time);
      }

      @Override
      public long peakHeld() {
        return d.stats().peakHeld();
      }
    };
  }

  /**
   * The TTL map people write first: key → event time it was last kept; a duplicate if kept less
   * than W away; once the watermark has moved on by a minute, one scan drops what no event can need
   * (given idem's retention, W + allowed lateness behind the watermark, so the two can agree on
   * every event that is not late). It has no notion of late events.
   */
  static final class HashMapTtl implements Contender {
    private final Map<String, Long> lastKept = new HashMap<>();
    private long maxEventTime = Long.MIN_VALUE;
    private long nextPurge = Long.MIN_VALUE;
    private long peakHeld;

    @Override
    public Verdict check(byte[] key, int length, long time) {
      String k = new String(key, 0, length, StandardCharsets.US_ASCII);
      Long last = lastKept.get(k);
      Verdict v = Verdict.KEPT;
      if (last != null && Math.abs(time - last) < ClickStream.WINDOW) {
        v = Verdict.DUPLICATE;
      } else {
        lastKept.put(k, time);
      }
      if (time > maxEventTime) {
        maxEventTime = time;
        long watermark = time - ClickStream.MAX_DELAY;
        if (watermark >= nextPurge) {
          peakHeld = Math.max(peakHeld, lastKept.size());
          long horizon = watermark - ClickStream.LATENESS - ClickStream.WINDOW;
          lastKept.values().removeIf(t -> t <= horizon);
          nextPurge = watermark + 60_000;
        }
      }
      return v;
    }

    @Override
    public long peakHeld() {
      return Math.max(peakHeld, lastKept.size());
    }
  }

  private static long mix(long i) {
    long z = (i + 1) * 0x9E37_79B9_7F4A_7C15L;
    z = (z ^ (z >>> 30)) * 0xBF58_476D_1CE4_E5B9L;
    return z ^ (z >>> 31);
  }

  private static long gcMillis() {
    long ms = 0;
    for (GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans()) {
      ms += Math.max(0, gc.getCollectionTime());
    }
    return ms;
  }

  /** Used heap once repeated full collections stop freeing anything. */
  static long usedAfterGc() throws InterruptedException {
    Runtime rt = Runtime.getRuntime();
    long used = Long.MAX_VALUE;
    for (int i = 0; i < 10; i++) {
      System.gc();
      Thread.sleep(50);
      long now = rt.totalMemory() - rt.freeMemory();
      if (now >= used) {
        return now;
      }
      used = now;
    }
    return used;
  }
}
