package dev.idem.bench;

import java.util.SplittableRandom;

/**
 * A deterministic synthetic click stream for {@code bin/idem-bench window}: every contender's JVM
 * generates the same events from the same seed, on the fly (no arena: 50 M keys would be a gigabyte
 * of heap that is not the state being measured).
 *
 * <p>Event time starts at 2025-12-02T10:00:00Z (aligned to 10-minute windows) and advances at a
 * rate that swells and ebbs like daily traffic compressed into an hour: 10 k events/s of event time
 * on average, between 5 k and 15 k. Each event is one of:
 *
 * <ul>
 *   <li>a fresh click (a key never used before, ~91 %),
 *   <li>a duplicate (5 %): a click first made a log-uniform 1 ms … 400 s earlier, repeated, so well
 *       inside a 10-minute window (double clicks, client retries, queue redelivery),
 *   <li>a re-click (3 %) of a key first used 15–60 minutes earlier: a genuine new click that a
 *       10-minute TTL must let through,
 *   <li>a late event (1 %) whose event time is 1 s … 10 min beyond max delay + allowed lateness
 *       behind the newest event: half are resends of a click made around that time (true
 *       duplicates), half clicks never seen (an offline client catching up).
 * </ul>
 *
 * <p>10 % of the other events are out of order by up to 20 s (less than the 30 s max delay), so no
 * event but the late ones is behind the watermark.
 */
final class ClickStream {

  static final long START = 1_764_669_600_000L;
  static final long WINDOW = 600_000;
  static final long MAX_DELAY = 30_000;
  static final long LATENESS = 60_000;
  static final long SEED = 0x1DE4_C11C_5L;

  private static final double MEAN_RATE = 10_000; // events per second of event time
  private static final double RATE_SWING = 0.5;
  private static final double RATE_PERIOD = 3_600_000;
  private static final double LATE = 0.01;
  private static final double DUPLICATE = 0.05;
  private static final double RECLICK = 0.03;
  private static final double OUT_OF_ORDER = 0.10;
  private static final long DISORDER = 20_000;
  private static final double LOG_MAX_REPEAT_DISTANCE = Math.log(400_000);
  private static final int RING = 1 << 13; // seconds remembered: more than the 60 min of re-clicks
  private static final long KEY_SPACE_MASK = (1L << 36) - 1;

  /** Late fresh clicks take ids from here up, never repeated later (see {@link #next}). */
  private static final long LATE_IDS = 1L << 35;

  /** What the generator meant an event to be (known to the harness, never to the contenders). */
  enum Kind {
    FRESH,
    DUPLICATE,
    RECLICK,
    LATE_RESEND,
    LATE_FRESH;

    boolean late() {
      return this == LATE_RESEND || this == LATE_FRESH;
    }
  }

  private final SplittableRandom random = new SplittableRandom(SEED);

  /** The first fresh id issued in each second of event time since START (a ring). */
  private final long[] firstFreshOfSecond = new long[RING];

  private long second;
  private double clock; // ms since START: the "now" of the stream
  private long nextFresh;
  private long nextLateFresh = LATE_IDS;

  /** The current event: key bytes (ASCII) in {@code key[0, keyLength)}. */
  final byte[] key = new byte[48];

  int keyLength;
  long time;
  Kind kind;

  /** Moves to the next event. */
  void next() {
    clock += 1000.0 / rate(clock);
    long now = (long) clock;
    while (second < now / 1000) {
      second++;
      firstFreshOfSecond[(int) (second & (RING - 1))] = nextFresh;
    }
    double r = random.nextDouble();
    long id = -1;
    if (r < LATE && now > MAX_DELAY + LATENESS + 2_000) {
      time = now - MAX_DELAY - LATENESS - 1_000 - random.nextLong(600_000);
      kind = random.nextBoolean() ? Kind.LATE_RESEND : Kind.LATE_FRESH;
      if (kind == Kind.LATE_RESEND) {
        id = freshIdOfSecond(Math.floorDiv(time, 1000));
      }
      time += START;
    } else {
      time = START + (random.nextDouble() < OUT_OF_ORDER ? now - random.nextLong(DISORDER) : now);
      if (r < LATE + DUPLICATE) {
        kind = Kind.DUPLICATE;
        long distance = (long) Math.exp(random.nextDouble() * LOG_MAX_REPEAT_DISTANCE);
        id = freshIdOfSecond((now - distance) / 1000);
      } else if (r < LATE + DUPLICATE + RECLICK) {
        kind = Kind.RECLICK;
        id = freshIdOfSecond((now - 900_000 - random.nextLong(2_700_000)) / 1000);
      } else {
        kind = Kind.FRESH;
      }
    }
    if (id < 0 && kind.late()) {
      // A key of its own, never drawn again as a duplicate or re-click: idem does not store late
      // events (it answers LATE) while the HashMap does, so a later repeat would be judged
      // differently for that reason alone and blur the comparison of the events that are not late.
      kind = Kind.LATE_FRESH;
      id = nextLateFresh++;
    } else if (id < 0) { // nothing to repeat yet (start of the stream): a fresh click instead
      kind = Kind.FRESH;
      id = nextFresh++;
    }
    writeKey(id);
  }

  /** The stream's clock: the event time of an event that is neither out of order nor late. */
  long now() {
    return START + (long) clock;
  }

  /** Events per second of event time at {@code ms} since START. */
  private static double rate(double ms) {
    return MEAN_RATE * (1 + RATE_SWING * Math.sin(2 * Math.PI * ms / RATE_PERIOD));
  }

  /** A fresh id first used during second {@code s} of the stream, or -1 if none is known. */
  private long freshIdOfSecond(long s) {
    if (s < 0 || s > second || second - s >= RING - 1) {
      return -1;
    }
    long from = firstFreshOfSecond[(int) (s & (RING - 1))];
    long to = s == second ? nextFresh : firstFreshOfSecond[(int) ((s + 1) & (RING - 1))];
    return to > from ? from + random.nextLong(to - from) : -1;
  }

  /** {@code user<u>/ad<a>}: an odd multiplier is a bijection on 36 bits, so ids never collide. */
  private void writeKey(long id) {
    long s = (id * 0x9E37_79B9_7F4A_7C15L) & KEY_SPACE_MASK;
    int n = 0;
    key[n++] = 'u';
    key[n++] = 's';
    key[n++] = 'e';
    key[n++] = 'r';
    n = writeDecimal(s >>> 12, n);
    key[n++] = '/';
    key[n++] = 'a';
    key[n++] = 'd';
    keyLength = writeDecimal(s & 0xFFF, n);
  }

  private int writeDecimal(long v, int at) {
    int digits = 1;
    for (long x = v; x >= 10; x /= 10) {
      digits++;
    }
    for (int i = at + digits - 1; i >= at; i--) {
      key[i] = (byte) ('0' + v % 10);
      v /= 10;
    }
    return at + digits;
  }
}
