package dev.idem.engine.window;

/**
 * The keys kept in one time bucket, each with the event time it was kept at: open addressing over
 * primitive arrays (fingerprint halves and time), so a bucket of a million keys is three arrays. A
 * key is kept at most once per bucket (a second event that close in time is a duplicate), so there
 * is no update or removal; whole buckets are dropped when the watermark passes them.
 */
final class TimedFingerprints {

  static final long ABSENT = Long.MIN_VALUE;
  private static final double LOAD = 0.7;

  private long[] his;
  private long[] los;
  private long[] times;
  private boolean[] used;
  private int size;

  TimedFingerprints() {
    allocate(64);
  }

  private void allocate(int slots) {
    his = new long[slots];
    los = new long[slots];
    times = new long[slots];
    used = new boolean[slots];
  }

  /** The event time {@code (hi, lo)} was kept at, or {@link #ABSENT}. */
  long timeOf(long hi, long lo) {
    int mask = used.length - 1;
    for (int i = (int) mix(hi) & mask; used[i]; i = (i + 1) & mask) {
      if (his[i] == hi && los[i] == lo) {
        return times[i];
      }
    }
    return ABSENT;
  }

  /** Slot bytes: two fingerprint halves, the time, the used flag. */
  private static final int SLOT_BYTES = 3 * Long.BYTES + 1;

  /** The array bytes of a bucket holding {@code keys} keys (it doubles from 64 slots). */
  static long bytesFor(long keys) {
    long slots = 64;
    while (keys > slots * LOAD) {
      slots *= 2;
    }
    return slots * SLOT_BYTES;
  }

  /** Records a key not yet in this bucket. */
  void put(long hi, long lo, long time) {
    if (size + 1 > used.length * LOAD) {
      grow();
    }
    insert(hi, lo, time);
    size++;
  }

  private void insert(long hi, long lo, long time) {
    int mask = used.length - 1;
    int i = (int) mix(hi) & mask;
    while (used[i]) {
      i = (i + 1) & mask;
    }
    used[i] = true;
    his[i] = hi;
    los[i] = lo;
    times[i] = time;
  }

  private void grow() {
    long[] h = his;
    long[] l = los;
    long[] t = times;
    boolean[] u = used;
    allocate(u.length * 2);
    for (int i = 0; i < u.length; i++) {
      if (u[i]) {
        insert(h[i], l[i], t[i]);
      }
    }
  }

  /** Fingerprints are uniform already; the mix only spreads them over a power-of-two table. */
  private static long mix(long hi) {
    return hi ^ (hi >>> 32);
  }

  int size() {
    return size;
  }

  /** Receives the entries of a bucket. */
  interface EntryConsumer {
    void accept(long hi, long lo, long time);
  }

  void forEach(EntryConsumer action) {
    for (int i = 0; i < used.length; i++) {
      if (used[i]) {
        action.accept(his[i], los[i], times[i]);
      }
    }
  }
}
