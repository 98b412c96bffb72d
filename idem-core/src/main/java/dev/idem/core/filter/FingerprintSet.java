package dev.idem.core.filter;

import dev.idem.core.ByteSize;
import dev.idem.core.Fingerprint;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.WritableByteChannel;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.zip.CRC32C;

/**
 * An exact set of 128-bit fingerprints in one primitive {@code long[]}: open addressing over
 * buckets of four 16-byte slots (hi, lo), one 64-byte cache line each, so a key costs 16 bytes
 * divided by the load factor and no object. At the default load factor of 0.75 that is 21.3 bytes
 * per key; a {@code HashSet<String>} of URLs costs several times more (see docs/BENCHMARKS.md).
 *
 * <p>Why buckets: with one slot per probe, linear probing at load 0.75 scans 8.5 slots (136 bytes,
 * over two or three cache lines) for a key that is absent, which is every new key of a dedup job,
 * and its loop exits at an unpredictable slot. Here a key's home is a whole bucket ({@code hi}
 * mapped by multiply-shift to the bucket count, which need not be a power of two), its four slots
 * are compared one by one, and the search moves on to the next bucket only when the bucket is full
 * <i>and</i> some key has passed it (below), so most lookups read one line.
 *
 * <p>Invariants: a key lives in its home bucket or, when that was full, in a later one (linear
 * probing over buckets, wrapping), and every bucket in between is full. A bucket's keys fill its
 * slots from the first, so its last slot is empty exactly when the bucket has room. A full bucket's
 * first two slots carry one more bit in their order, "passed": a key whose home lies at or before
 * this bucket is stored beyond it. It is set (the two slots swapped) when an insert walks past the
 * bucket and starts clear when the bucket fills; a stale set bit only costs a probe. A lookup that
 * reaches a full bucket without the bit stops there: nothing it seeks lies beyond. Buckets start on
 * 64-byte boundaries (the array begins with {@link #PAD} unused words).
 *
 * <p>It doubles when full. Removal shifts back (no tombstones, so lookups never slow down after
 * many removals): the bucket closes its gap, and while it had been passed, the first key found
 * further on that may live in it moves back, which repeats for the bucket that key left.
 *
 * <p>As a {@link MembershipFilter} it never errs, but for the 2<sup>-128</sup> chance that two keys
 * share a fingerprint. Not thread-safe: it is the single-threaded exact tier and pending set of the
 * engine; wrap it for concurrent use.
 *
 * <p>Snapshots (type {@code exact}, docs/FORMAT.md) store the buckets as they are, layout 1. A
 * snapshot of layout 0, written before buckets (slots in linear-probing order, home slot {@code
 * reduce(hi, slots)}), is read by inserting its keys into buckets.
 *
 * <p>Why it is long: the probe, insert, grow and back-shift removal and the two snapshot layouts
 * all work on the bucket layout and the "passed" bit above; split apart, each part could break the
 * invariants the others rely on.
 */
public final class FingerprintSet implements MembershipFilter, SnapshotSupport {

  /** The load factor of {@link #withExpectedSize(long)}. */
  public static final double DEFAULT_LOAD_FACTOR = 0.75;

  static final int SLOTS_PER_BUCKET = 4;
  private static final int BUCKET_WORDS = 2 * SLOTS_PER_BUCKET;

  /**
   * Unused words before bucket 0, so that buckets are cache lines: HotSpot puts a {@code long[]}'s
   * first element 16 bytes after the array's start (compressed class pointers, the default at any
   * heap size since JDK 15), and G1 starts every large array at a region boundary. On another
   * layout the set stays correct and a bucket may span two lines.
   */
  static final int PAD = 6;

  /** Buckets are limited by the largest {@code long[]}. */
  static final int MAX_BUCKETS = (Integer.MAX_VALUE - 8 - PAD) / BUCKET_WORDS;

  /** Snapshot layouts: slots in linear-probing order (before buckets), and buckets. */
  static final int LAYOUT_LINEAR = 0;

  static final int LAYOUT_BUCKETS = 1;

  /** The least a projected growth ({@link #projectGrowth}) enlarges the table by. */
  private static final double MIN_PROJECTED_GROWTH = 1.125;

  /** Projected keys are this much more than the count projects, so that noise does not regrow. */
  private static final double PROJECTION_MARGIN = 1.05;

  private final double loadFactor;
  private long[] table;

  /** Growth: the most the table grows by at once, and adds expected in all (0: not known). */
  private double maxGrowth = 2;

  private long expectedAdds;
  private long adds; // calls of addIfAbsent, duplicates included
  private long prefetchSink; // keeps the JIT from dropping prefetch's reads
  private int buckets;
  private int growAt;
  private int size;

  /** The fingerprint (0, 0) marks empty slots, so its membership is kept here. */
  private boolean containsZero;

  private FingerprintSet(int buckets, double loadFactor) {
    this.loadFactor = loadFactor;
    allocate(buckets);
  }

  /** An empty set of exactly {@code buckets} buckets: what a merge of known size fills. */
  static FingerprintSet withBuckets(int buckets, double loadFactor) {
    return new FingerprintSet(buckets, loadFactor);
  }

  /**
   * A heap copy of a table used in place, word for word (the layouts are the same), its pages
   * verified as they are read: how a layered striped set brings a stripe into the heap.
   *
   * @throws SnapshotDamagedException when a page fails its checksum
   */
  static FingerprintSet copyOf(MappedTable mapped) {
    FingerprintSet set = new FingerprintSet(mapped.buckets(), mapped.loadFactor());
    MappedBitArray words = mapped.words();
    long[] t = set.table;
    int n = BUCKET_WORDS * mapped.buckets();
    for (int at = 0; at < n; at += BUCKET_WORDS) {
      words.check(at);
      for (int w = 0; w < BUCKET_WORDS; w++) {
        t[PAD + at + w] = words.rawWord(at + w);
      }
    }
    set.size = mapped.size();
    set.containsZero = mapped.containsZero();
    return set;
  }

  /** The load factor this set grows at. */
  double loadFactor() {
    return loadFactor;
  }

  /** Whether the set holds the fingerprint (0, 0). */
  boolean containsZero() {
    return containsZero;
  }

  /** A set that holds {@code expectedKeys} keys at the default load factor before it grows. */
  public static FingerprintSet withExpectedSize(long expectedKeys) {
    return withExpectedSize(expectedKeys, DEFAULT_LOAD_FACTOR);
  }

  /**
   * A set that holds {@code expectedKeys} keys at {@code loadFactor} before it grows.
   *
   * @throws IllegalArgumentException for a load factor outside (0, 0.95] or more keys than one
   *     array can hold (about 800 million at 0.75: use an on-disk exact store beyond that)
   */
  public static FingerprintSet withExpectedSize(long expectedKeys, double loadFactor) {
    if (!(loadFactor > 0 && loadFactor <= 0.95)) {
      throw new IllegalArgumentException(
          "load factor must be in (0, 0.95], got " + loadFactor + "; 0.75 is a good default");
    }
    if (expectedKeys < 0) {
      throw new IllegalArgumentException("expected keys must be >= 0, got " + expectedKeys);
    }
    double buckets = bucketsFor(expectedKeys, loadFactor);
    if (buckets > MAX_BUCKETS) {
      throw new IllegalArgumentException(
          "an in-memory fingerprint set holds at most "
              + (long) ((double) MAX_BUCKETS * SLOTS_PER_BUCKET * loadFactor)
              + " keys at load "
              + loadFactor
              + ", not "
              + expectedKeys
              + "; use an on-disk exact store (RocksDB) for more");
    }
    return new FingerprintSet((int) buckets, loadFactor);
  }

  /**
   * The table bytes of {@link #withExpectedSize(long)} for {@code expectedKeys} keys (64 bytes a
   * bucket of four); the object headers add a few dozen bytes. May exceed what one set can hold.
   */
  public static long bytesFor(long expectedKeys) {
    return 8L * BUCKET_WORDS * (long) bucketsFor(Math.max(0, expectedKeys), DEFAULT_LOAD_FACTOR);
  }

  /** Enough buckets that the keys, plus one free slot, fit at the load factor. */
  static double bucketsFor(long expectedKeys, double loadFactor) {
    double slots = Math.ceil(Math.max(expectedKeys, 1) / loadFactor) + 1;
    return Math.max(2, Math.ceil(slots / SLOTS_PER_BUCKET));
  }

  private void allocate(int bucketCount) {
    long bytes = 8L * BUCKET_WORDS * bucketCount;
    try {
      table = new long[PAD + BUCKET_WORDS * bucketCount];
    } catch (OutOfMemoryError e) {
      throw new NotEnoughMemoryException(
          "not enough memory for a fingerprint set of "
              + ByteSize.format(bytes)
              + " (JVM heap limit "
              + ByteSize.format(Runtime.getRuntime().maxMemory())
              + "); raise the heap with -Xmx "
              + "(for bin/idem: IDEM_JAVA_OPTS=-Xmx...) or use an on-disk exact store");
    }
    buckets = bucketCount;
    long slots = (long) SLOTS_PER_BUCKET * bucketCount;
    // at least one free slot always, so every probe finds a bucket with room
    growAt = (int) Math.min(slots - 1, (long) (slots * loadFactor));
  }

  /**
   * A hint that keys {@code from} to {@code to} of {@code fingerprints} (hi, lo pairs) come next:
   * reads their home buckets so that a batch's cache misses overlap. Changes nothing.
   */
  @Override
  public void prefetch(long[] fingerprints, int from, int to) {
    long sink = 0;
    for (int i = from; i < to; i++) {
      sink ^= touch(fingerprints[2 * i]);
    }
    prefetchSink = sink;
  }

  /** Reads the first word of the home bucket of {@code hi}: a prefetch the caller keeps alive. */
  long touch(long hi) {
    return table[base(home(hi))];
  }

  /**
   * Adds the fingerprint; true when it was not in the set.
   *
   * <p>The common case, a new key whose home bucket has room, is kept short: the fewer instructions
   * a key takes, the more keys' cache misses the CPU keeps in flight at once, and that, not the
   * arithmetic, sets the speed of a set larger than the caches.
   */
  public boolean addIfAbsent(long hi, long lo) {
    adds++;
    if ((hi | lo) == 0) {
      return addZero();
    }
    long[] t = table;
    int at = base(home(hi));
    long h3 = t[at + 6];
    long l3 = t[at + 7];
    if ((h3 | l3) != 0 || holds(t, at, hi, lo)) {
      return addIfAbsentBeyond(hi, lo, at);
    }
    put(
        t,
        at,
        used(t[at] | t[at + 1]) + used(t[at + 2] | t[at + 3]) + used(t[at + 4] | t[at + 5]),
        hi,
        lo);
    if (++size > growAt) {
      grow();
    }
    return true;
  }

  /**
   * Whether one of the first three slots of the bucket at {@code at} holds (hi, lo), slot by slot:
   * on this path a branch per slot, well predicted, beats comparing all slots without branches,
   * which costs more instructions per key and so fewer keys in flight.
   */
  private static boolean holds(long[] t, int at, long hi, long lo) {
    return (t[at] == hi && t[at + 1] == lo)
        || (t[at + 2] == hi && t[at + 3] == lo)
        || (t[at + 4] == hi && t[at + 5] == lo);
  }

  private boolean addZero() {
    if (containsZero) {
      return false;
    }
    containsZero = true;
    size++;
    return true;
  }

  /** {@link #addIfAbsent} when the home bucket matches a hi or is full: the general walk. */
  private boolean addIfAbsentBeyond(long hi, long lo, int at) {
    long[] t = table;
    while (true) {
      long h3 = t[at + 6];
      long l3 = t[at + 7];
      if (holds(t, at, hi, lo) || (h3 == hi && l3 == lo)) {
        return false;
      }
      if ((h3 | l3) == 0) {
        put(
            t,
            at,
            used(t[at] | t[at + 1]) + used(t[at + 2] | t[at + 3]) + used(t[at + 4] | t[at + 5]),
            hi,
            lo);
        break;
      }
      if (!passed(t[at], t[at + 1], t[at + 2], t[at + 3])) {
        // nothing passed this full bucket, so the key is nowhere beyond it: it goes beyond it
        markPassed(t, at);
        place(t, nextBase(at), hi, lo);
        break;
      }
      at = nextBase(at);
    }
    if (++size > growAt) {
      grow();
    }
    return true;
  }

  /** See {@link #addIfAbsent(long, long)}. */
  public boolean addIfAbsent(Fingerprint f) {
    return addIfAbsent(f.hi(), f.lo());
  }

  /** True when the fingerprint is in the set. */
  public boolean contains(long hi, long lo) {
    if ((hi | lo) == 0) {
      return containsZero;
    }
    long[] t = table;
    int at = base(home(hi));
    while (true) {
      if (holds(t, at, hi, lo)) {
        return true;
      }
      long h3 = t[at + 6];
      long l3 = t[at + 7];
      if (h3 == hi && l3 == lo) {
        return true;
      }
      if ((h3 | l3) == 0 || !passed(t[at], t[at + 1], t[at + 2], t[at + 3])) {
        return false;
      }
      at = nextBase(at);
    }
  }

  /** See {@link #contains(long, long)}. */
  public boolean contains(Fingerprint f) {
    return contains(f.hi(), f.lo());
  }

  /** Removes the fingerprint; true when it was in the set. */
  public boolean remove(long hi, long lo) {
    if ((hi | lo) == 0) {
      if (!containsZero) {
        return false;
      }
      containsZero = false;
      size--;
      return true;
    }
    long[] t = table;
    int b = home(hi);
    int slot;
    while (true) {
      int at = base(b);
      slot = slotOf(t, at, hi, lo);
      if (slot >= 0) {
        break;
      }
      if ((t[at + 6] | t[at + 7]) == 0 || !passed(t[at], t[at + 1], t[at + 2], t[at + 3])) {
        return false;
      }
      b = next(b);
    }
    size--;
    int hole = b;
    int at = base(hole);
    boolean holeWasPassed = isFull(t, at) && passed(t[at], t[at + 1], t[at + 2], t[at + 3]);
    closeGap(t, at, slot);
    // Backward shift. Only keys whose probe passed the hole's bucket can need it, and then every
    // bucket from the hole to them is full and passed; the first such key found moves back.
    boolean scanning = holeWasPassed;
    for (int j = next(hole); scanning && j != hole; j = next(j)) {
      int aj = base(j);
      boolean full = isFull(t, aj);
      boolean jPassed = full && passed(t[aj], t[aj + 1], t[aj + 2], t[aj + 3]);
      int mover = -1;
      for (int s = 0; s < SLOTS_PER_BUCKET && mover < 0; s++) {
        long h = t[aj + 2 * s];
        if ((h | t[aj + 2 * s + 1]) != 0 && !homeIn(hole, home(h), j)) {
          mover = s;
        }
      }
      if (mover >= 0) {
        int ah = base(hole);
        // the hole's bucket has three keys in its first slots: the mover fills the last
        t[ah + 6] = t[aj + 2 * mover];
        t[ah + 7] = t[aj + 2 * mover + 1];
        setPassed(t, ah, holeWasPassed);
        closeGap(t, aj, mover);
        hole = j;
        holeWasPassed = jPassed;
      }
      scanning = jPassed;
    }
    return true;
  }

  /** See {@link #remove(long, long)}. */
  public boolean remove(Fingerprint f) {
    return remove(f.hi(), f.lo());
  }

  /** Number of fingerprints in the set. */
  public int size() {
    return size;
  }

  /** Removes everything, keeping the table's size. */
  public void clear() {
    java.util.Arrays.fill(table, 0L);
    size = 0;
    containsZero = false;
  }

  /**
   * Calls {@code action} with every fingerprint in the set, in table order. The set must not change
   * meanwhile.
   */
  public void forEach(FingerprintConsumer action) {
    if (containsZero) {
      action.accept(0, 0);
    }
    long[] t = table;
    for (int i = PAD; i < t.length; i += 2) {
      if ((t[i] | t[i + 1]) != 0) {
        action.accept(t[i], t[i + 1]);
      }
    }
  }

  /** Receives fingerprints from {@link #forEach}. */
  @FunctionalInterface
  public interface FingerprintConsumer {
    void accept(long hi, long lo);
  }

  private int home(long hi) {
    return (int) AbstractBloomFilter.reduce(hi, buckets);
  }

  private static int base(int bucket) {
    return PAD + BUCKET_WORDS * bucket;
  }

  private int next(int bucket) {
    return bucket + 1 == buckets ? 0 : bucket + 1;
  }

  /** The first word of the bucket after the one at {@code at}, wrapping. */
  private int nextBase(int at) {
    int n = at + BUCKET_WORDS;
    return n == table.length ? PAD : n;
  }

  /** True when {@code k} lies in the cyclic bucket interval {@code (from, to]}. */
  private static boolean homeIn(int from, int k, int to) {
    return from <= to ? (from < k && k <= to) : (from < k || k <= to);
  }

  /** 1 for an occupied slot (its hi | lo), 0 for an empty one. */
  private static int used(long hiOrLo) {
    return (int) ((hiOrLo | -hiOrLo) >>> 63);
  }

  /** The "passed" bit of a full bucket: its first slot orders after its second. */
  static boolean passed(long h0, long l0, long h1, long l1) {
    return h0 > h1 | (h0 == h1 & l0 > l1);
  }

  private static boolean isFull(long[] t, int at) {
    return (t[at + 6] | t[at + 7]) != 0;
  }

  /** Gives a full bucket's "passed" bit the value {@code passed} by ordering its first slots. */
  private static void setPassed(long[] t, int at, boolean passed) {
    if (passed(t[at], t[at + 1], t[at + 2], t[at + 3]) != passed) {
      long h = t[at];
      long l = t[at + 1];
      t[at] = t[at + 2];
      t[at + 1] = t[at + 3];
      t[at + 2] = h;
      t[at + 3] = l;
    }
  }

  private static void markPassed(long[] t, int at) {
    setPassed(t, at, true);
  }

  /** Stores a key in free slot {@code slot}; a bucket that fills starts not passed. */
  private static void put(long[] t, int at, int slot, long hi, long lo) {
    t[at + 2 * slot] = hi;
    t[at + 2 * slot + 1] = lo;
    if (slot == SLOTS_PER_BUCKET - 1) {
      setPassed(t, at, false);
    }
  }

  /** Places a key known to be absent: the first bucket with room from the one at {@code at}. */
  private void place(long[] t, int at, long hi, long lo) {
    while (isFull(t, at)) {
      markPassed(t, at);
      at = nextBase(at);
    }
    put(
        t,
        at,
        used(t[at] | t[at + 1]) + used(t[at + 2] | t[at + 3]) + used(t[at + 4] | t[at + 5]),
        hi,
        lo);
  }

  /** The slot of (hi, lo) in the bucket at {@code at}, or -1. */
  private static int slotOf(long[] t, int at, long hi, long lo) {
    for (int s = 0; s < SLOTS_PER_BUCKET; s++) {
      if (t[at + 2 * s] == hi && t[at + 2 * s + 1] == lo) {
        return s;
      }
    }
    return -1;
  }

  /** Empties {@code slot} and keeps the keys in the first slots: the last key moves into it. */
  private static void closeGap(long[] t, int at, int slot) {
    int last = SLOTS_PER_BUCKET - 1;
    while ((t[at + 2 * last] | t[at + 2 * last + 1]) == 0) {
      last--;
    }
    t[at + 2 * slot] = t[at + 2 * last];
    t[at + 2 * slot + 1] = t[at + 2 * last + 1];
    t[at + 2 * last] = 0;
    t[at + 2 * last + 1] = 0;
  }

  private void grow() {
    if (buckets >= MAX_BUCKETS) {
      throw new IllegalStateException(
          "fingerprint set is full at "
              + size
              + " keys (the largest Java array); use an on-disk exact store");
    }
    long[] old = table;
    allocate(
        (int) Math.min(MAX_BUCKETS, Math.max(buckets + 1L, (long) Math.ceil(buckets * step()))));
    insertAll(old, PAD, old.length);
  }

  /**
   * How much the table grows by: {@link #maxGrowth}, or, while the adds expected in all have not
   * come, enough for the keys the adds so far project (new keys per add as until now), but at least
   * {@link #MIN_PROJECTED_GROWTH}.
   */
  private double step() {
    if (adds == 0 || expectedAdds <= adds) {
      return maxGrowth;
    }
    double projected = PROJECTION_MARGIN * size * ((double) expectedAdds / adds);
    double step = projected / ((double) buckets * SLOTS_PER_BUCKET * loadFactor);
    return Math.min(maxGrowth, Math.max(MIN_PROJECTED_GROWTH, step));
  }

  /**
   * Lets the set grow by less than doubling: by at most {@code maxGrowth} at a time, and toward the
   * keys that {@code expectedAdds} calls of {@link #addIfAbsent} in all would bring at the rate of
   * new keys seen so far ({@code 0}: not known). A set sized below its final count then ends close
   * to it, at the cost of more, smaller regrowths.
   */
  void projectGrowth(long expectedAdds, double maxGrowth) {
    if (!(maxGrowth >= MIN_PROJECTED_GROWTH && maxGrowth <= 2) || expectedAdds < 0) {
      throw new IllegalArgumentException(
          "growth " + maxGrowth + " must be in [1.125, 2], expected adds >= 0: " + expectedAdds);
    }
    this.maxGrowth = maxGrowth;
    this.expectedAdds = expectedAdds;
  }

  /** Places the keys of words {@code [from, to)} (hi, lo pairs; (0, 0) skipped), all distinct. */
  private void insertAll(long[] words, int from, int to) {
    long[] t = table;
    for (int i = from; i < to; i += 2) {
      long h = words[i];
      long l = words[i + 1];
      if ((h | l) != 0) {
        place(t, base(home(h)), h, l);
      }
    }
  }

  // ---- MembershipFilter: an exact answer

  @Override
  public boolean put(long hi, long lo) {
    return addIfAbsent(hi, lo);
  }

  @Override
  public boolean mightContain(long hi, long lo) {
    return contains(hi, lo);
  }

  /** About {@code size / 2^128}: the chance a fresh key shares a fingerprint with a member. */
  @Override
  public double expectedFpp() {
    return size * 0x1p-128;
  }

  @Override
  public long approximateCount() {
    return size;
  }

  @Override
  public long bitSize() {
    return 128L * slots();
  }

  private long slots() {
    return (long) SLOTS_PER_BUCKET * buckets;
  }

  /** Keys held before the table doubles. */
  @Override
  public long capacity() {
    return growAt;
  }

  @Override
  public FilterType type() {
    return FilterType.EXACT;
  }

  @Override
  public Map<String, Object> layout() {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("slots", slots());
    m.put("slots_per_bucket", SLOTS_PER_BUCKET);
    m.put("load_factor", loadFactor);
    m.put("bytes_per_key", size == 0 ? 0.0 : 16.0 * slots() / size);
    return m;
  }

  // ---- snapshots

  /*
   * Parameter block (24 bytes): slots u64, load factor f64, contains-zero u32, layout u32.
   * Layout 1 (written now): slots = 4 · buckets, the payload is the buckets, 8 words each (hi, lo
   * per slot, the "passed" bit in the order of the first two slots of a full bucket). Layout 0
   * (written before buckets, read only): slots in linear-probing order, home slot
   * reduce(hi, slots), 2 words each. The header count is the size.
   */
  @Override
  public void writeParameters(ByteBuffer out) {
    out.putLong(slots()).putDouble(loadFactor).putInt(containsZero ? 1 : 0).putInt(LAYOUT_BUCKETS);
  }

  @Override
  public List<BitArray> payload() {
    return List.of(new TableWords(table));
  }

  static FingerprintSet restore(ByteBuffer params, long count, Payload payload) throws IOException {
    long slots = params.getLong();
    double loadFactor = params.getDouble();
    int zero = params.getInt();
    int layout = params.getInt();
    if (slots < 2
        || slots > (long) MAX_BUCKETS * SLOTS_PER_BUCKET
        || !(loadFactor > 0 && loadFactor <= 0.95)
        || (zero & ~1) != 0
        || (layout != LAYOUT_LINEAR && layout != LAYOUT_BUCKETS)
        || (layout == LAYOUT_BUCKETS && (slots % SLOTS_PER_BUCKET != 0 || slots < 8))
        || count > slots) {
      throw new IllegalArgumentException(
          "slots=" + slots + ", load=" + loadFactor + ", layout=" + layout + ", size=" + count);
    }
    BitArray words = payload.next(2 * slots);
    FingerprintSet set;
    long stored = 0;
    if (layout == LAYOUT_BUCKETS) {
      set = new FingerprintSet((int) (slots / SLOTS_PER_BUCKET), loadFactor);
      long[] t = set.table;
      for (int i = 0; i < 2 * slots; i += BUCKET_WORDS) {
        boolean gap = false;
        for (int s = 0; s < BUCKET_WORDS; s += 2) {
          long h = words.word(i + s);
          long l = words.word(i + s + 1);
          boolean used = (h | l) != 0;
          if (used && gap) {
            throw new IllegalArgumentException("bucket " + i / BUCKET_WORDS + " has a gap");
          }
          gap |= !used;
          stored += used ? 1 : 0;
          t[PAD + i + s] = h;
          t[PAD + i + s + 1] = l;
        }
      }
    } else {
      // the old linear-probing table: its keys go into buckets of the same capacity
      long keys = Math.max(count - zero, 0);
      double buckets =
          Math.max(Math.ceil(slots / (double) SLOTS_PER_BUCKET), bucketsFor(keys, loadFactor));
      set = new FingerprintSet((int) Math.min(buckets, MAX_BUCKETS), loadFactor);
      if (count - zero > set.growAt) {
        throw new IllegalArgumentException("size=" + count + " exceeds the set's capacity");
      }
      long[] t = set.table;
      for (int i = 0; i < 2 * slots; i += 2) {
        long h = words.word(i);
        long l = words.word(i + 1);
        if ((h | l) != 0) {
          if (++stored > count) {
            break; // refused below, before the table overflows
          }
          set.place(t, base(set.home(h)), h, l);
        }
      }
    }
    set.containsZero = zero == 1;
    set.size = (int) count;
    if (stored + zero != count) {
      throw new IllegalArgumentException(
          "the table holds " + (stored + zero) + " fingerprints, the header says " + count);
    }
    return set;
  }

  /** The buckets of a table as a payload array: the words after the alignment padding. */
  private static final class TableWords extends BitArray {
    private final long[] words;

    TableWords(long[] words) {
      this.words = words;
    }

    @Override
    long wordCount() {
      return words.length - PAD;
    }

    @Override
    long word(long index) {
      return words[PAD + (int) index];
    }

    @Override
    long orWord(long index, long mask) {
      long old = words[PAD + (int) index];
      words[PAD + (int) index] = old | mask;
      return old;
    }

    @Override
    void setWord(long index, long value) {
      words[PAD + (int) index] = value;
    }

    @Override
    void writeTo(WritableByteChannel out, CRC32C crc) throws IOException {
      HeapBitArray.write(words, PAD, words.length, out, crc);
    }
  }
}
