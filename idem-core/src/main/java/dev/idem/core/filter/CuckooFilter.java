package dev.idem.core.filter;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * A cuckoo filter (Fan, Andersen, Kaminsky, Mitzenmacher 2014): each key leaves an f-bit
 * fingerprint in one of two buckets of four slots, so keys can be removed and, below about 0.3 %
 * error, it needs fewer bits per key than a Bloom filter ({@code (log2(1/p) + 3) / 0.95} against
 * {@code 1.44·log2(1/p)}).
 *
 * <ul>
 *   <li>Fingerprint width {@code f = ceil(log2(2b/p))} for target rate {@code p} and {@code b = 4}
 *       slots per bucket, any width from 4 to 32 bits, packed without padding (13 bits at 0.1 %).
 *   <li>Buckets: {@code ceil(n / (4 · 0.95))}, any count, not only powers of two, so the filter is
 *       never up to twice larger than needed. The first bucket comes from the key's {@code hi}; the
 *       alternate one is {@code (h(fp) - i) mod buckets}, its own inverse, so a fingerprint can
 *       move between its two buckets knowing only its current one.
 *   <li>Insertion evicts a random resident and moves it to its other bucket, for at most {@code
 *       maxKicks} (500) steps. A victim still homeless at the end goes to a small stash (4
 *       entries). When the stash is full too, every move of that insertion is undone and {@link
 *       FilterFullException} is thrown: <b>a failed insertion never loses a stored fingerprint</b>.
 *   <li>Expected rate at load {@code α}: {@code 2b·α / (2^f - 1)}, from the 2b slots a query
 *       compares. This is exact when no two keys of a bucket pair share a fingerprint, as with
 *       {@link #put}, which skips keys already answered "maybe"; with many {@link #add}ed copies
 *       the real rate is a little lower.
 *   <li>One key can be stored at most {@code 2b = 8} times (the slots of its two buckets); more
 *       {@link #add}s of it are refused.
 * </ul>
 *
 * <p>Thread-safe: every method takes the filter's lock.
 *
 * <p>Why it is long: insertion with eviction, deletion, counting, the packed buckets and the
 * snapshot all work on the table's private bit layout.
 */
public final class CuckooFilter implements DeletableFilter, SnapshotSupport {

  /** Slots per bucket. */
  public static final int SLOTS = 4;

  /** Kicks before an insertion falls back to the stash. */
  public static final int DEFAULT_MAX_KICKS = 500;

  /** Load the default sizing plans for. */
  static final double DESIGN_LOAD = 0.95;

  static final int STASH_CAPACITY = 4;
  static final int MIN_BITS = 4;
  static final int MAX_BITS = 32;

  private final BitArray slots;
  private final long buckets;
  private final int bits;
  private final long fingerprintValues; // 2^f - 1 non-zero values
  private final int maxKicks;
  private final long capacity;
  private final double targetFpp;
  private final long[] stashBucket = new long[STASH_CAPACITY];
  private final long[] stashFingerprint = new long[STASH_CAPACITY];
  private int stashSize;
  private long count;
  private long random = 0x9E3779B97F4A7C15L;
  // the moves of the insertion in progress, to undo them if it fails
  private final long[] pathBucket;
  private final int[] pathSlot;
  private final long[] pathOld;

  private CuckooFilter(
      long capacity,
      double targetFpp,
      long buckets,
      int bits,
      int maxKicks,
      BitArray slots,
      long count) {
    if (bits < MIN_BITS || bits > MAX_BITS) {
      throw new IllegalArgumentException(
          "fingerprints must be " + MIN_BITS + " to " + MAX_BITS + " bits, got " + bits);
    }
    if (buckets < 1 || maxKicks < 0 || slots.wordCount() * Long.SIZE < buckets * SLOTS * bits) {
      throw new IllegalArgumentException("buckets=" + buckets + ", max kicks=" + maxKicks);
    }
    this.capacity = capacity;
    this.targetFpp = targetFpp;
    this.buckets = buckets;
    this.bits = bits;
    this.fingerprintValues = (1L << bits) - 1;
    this.maxKicks = maxKicks;
    this.slots = slots;
    this.count = count;
    this.pathBucket = new long[maxKicks];
    this.pathSlot = new int[maxKicks];
    this.pathOld = new long[maxKicks];
  }

  /** A filter for {@code expectedKeys} keys whose rate at capacity is at most {@code fpp}. */
  public static CuckooFilter create(long expectedKeys, double fpp) {
    return create(expectedKeys, fingerprintBitsFor(fpp), fpp);
  }

  /** The fingerprint width {@link #create(long, double)} chooses: ⌈log2(2b / fpp)⌉, 4 to 32. */
  public static int fingerprintBitsFor(double fpp) {
    FilterMath.checkFpp(fpp);
    int bits = (int) Math.ceil(Math.log(2.0 * SLOTS / fpp) / Math.log(2));
    return Math.max(MIN_BITS, Math.min(MAX_BITS, bits));
  }

  /** The bits of a filter for {@code expectedKeys} keys with {@code fingerprintBits} each. */
  public static long bitSizeFor(long expectedKeys, int fingerprintBits) {
    return buckets(expectedKeys) * SLOTS * fingerprintBits;
  }

  private static long buckets(long expectedKeys) {
    return (long) Math.ceil(expectedKeys / (SLOTS * DESIGN_LOAD));
  }

  /** A filter for {@code expectedKeys} keys with {@code fingerprintBits}-bit fingerprints. */
  public static CuckooFilter withFingerprintBits(long expectedKeys, int fingerprintBits) {
    return create(expectedKeys, fingerprintBits, falsePositiveRate(DESIGN_LOAD, fingerprintBits));
  }

  private static CuckooFilter create(long expectedKeys, int bits, double targetFpp) {
    FilterMath.checkKeys(expectedKeys);
    long buckets = buckets(expectedKeys);
    if (bits < MIN_BITS || bits > MAX_BITS) {
      throw new IllegalArgumentException(
          "fingerprints must be " + MIN_BITS + " to " + MAX_BITS + " bits, got " + bits);
    }
    if ((double) buckets * SLOTS * bits > FilterMath.MAX_BITS) {
      throw new IllegalArgumentException(
          "a cuckoo filter for "
              + expectedKeys
              + " keys needs more than the largest array; shard the keys");
    }
    return new CuckooFilter(
        expectedKeys,
        targetFpp,
        buckets,
        bits,
        DEFAULT_MAX_KICKS,
        HeapBitArray.allocate(buckets * SLOTS * bits),
        0);
  }

  /**
   * The rate of a cuckoo filter at load {@code load} (0 to 1) with {@code bits}-bit fingerprints:
   * {@code 2b·load / (2^f - 1)}, the share of fingerprint values present in a query's two buckets.
   */
  public static double falsePositiveRate(double load, int bits) {
    return Math.min(1.0, 2 * SLOTS * load / ((1L << bits) - 1));
  }

  private long fingerprint(long lo) {
    return 1 + AbstractBloomFilter.reduce(lo, fingerprintValues);
  }

  private long alternate(long bucket, long fp) {
    // (h(fp) - bucket) mod buckets: applying it twice gives back the bucket
    long h = AbstractBloomFilter.reduce(fp * 0xD6E8FEB86659FD93L, buckets);
    long alt = h - bucket;
    return alt < 0 ? alt + buckets : alt;
  }

  private long slot(long bucket, int slot) {
    return slots.field((bucket * SLOTS + slot) * bits, bits);
  }

  private void setSlot(long bucket, int slot, long fp) {
    slots.setField((bucket * SLOTS + slot) * bits, bits, fp);
  }

  private boolean bucketHas(long bucket, long fp) {
    for (int s = 0; s < SLOTS; s++) {
      if (slot(bucket, s) == fp) {
        return true;
      }
    }
    return false;
  }

  private int copies(long bucket, long fp) {
    int n = 0;
    for (int s = 0; s < SLOTS; s++) {
      n += slot(bucket, s) == fp ? 1 : 0;
    }
    return n;
  }

  private boolean placeInEmptySlot(long bucket, long fp) {
    for (int s = 0; s < SLOTS; s++) {
      if (slot(bucket, s) == 0) {
        setSlot(bucket, s, fp);
        return true;
      }
    }
    return false;
  }

  private int stashIndexOf(long b1, long b2, long fp) {
    for (int i = 0; i < stashSize; i++) {
      if (stashFingerprint[i] == fp && (stashBucket[i] == b1 || stashBucket[i] == b2)) {
        return i;
      }
    }
    return -1;
  }

  @Override
  public synchronized boolean mightContain(long hi, long lo) {
    long fp = fingerprint(lo);
    long b1 = AbstractBloomFilter.reduce(hi, buckets);
    if (bucketHas(b1, fp)) {
      return true;
    }
    long b2 = alternate(b1, fp);
    return bucketHas(b2, fp) || (stashSize > 0 && stashIndexOf(b1, b2, fp) >= 0);
  }

  /** Stores the key only when the filter answers "certainly new"; see {@link DeletableFilter}. */
  @Override
  public synchronized boolean put(long hi, long lo) {
    return !mightContain(hi, lo) && add(hi, lo);
  }

  /**
   * {@inheritDoc}
   *
   * @throws IllegalStateException when this key is already stored {@code 2b = 8} times
   */
  @Override
  public synchronized boolean add(long hi, long lo) {
    long fp = fingerprint(lo);
    long b1 = AbstractBloomFilter.reduce(hi, buckets);
    long b2 = alternate(b1, fp);
    int copies = copies(b1, fp) + (b2 == b1 ? 0 : copies(b2, fp));
    for (int i = 0; i < stashSize; i++) {
      copies += stashFingerprint[i] == fp && (stashBucket[i] == b1 || stashBucket[i] == b2) ? 1 : 0;
    }
    if (copies >= 2 * SLOTS) {
      throw new IllegalStateException(
          "this key is already stored "
              + copies
              + " times, the most a cuckoo filter holds (the 2 x 4 slots of its two buckets); "
              + "remove copies first or use put(), which stores a key once");
    }
    boolean absent = copies == 0;
    if (placeInEmptySlot(b1, fp) || placeInEmptySlot(b2, fp)) {
      count++;
      return absent;
    }
    kick(nextRandom() % 2 == 0 ? b1 : b2, fp);
    count++;
    return absent;
  }

  /**
   * The copies of the key stored ({@link #add}ed and not {@link #remove}d): 0 when it certainly was
   * never added; a key sharing its fingerprint and a bucket with another counts that one's copies
   * too, so it may be higher, never lower.
   */
  public synchronized int count(long hi, long lo) {
    long fp = fingerprint(lo);
    long b1 = AbstractBloomFilter.reduce(hi, buckets);
    long b2 = alternate(b1, fp);
    int copies = copies(b1, fp) + (b2 == b1 ? 0 : copies(b2, fp));
    for (int i = 0; i < stashSize; i++) {
      copies += stashFingerprint[i] == fp && (stashBucket[i] == b1 || stashBucket[i] == b2) ? 1 : 0;
    }
    return copies;
  }

  /** Random-walk eviction; on failure stashes the victim or undoes every move. */
  private void kick(long bucket, long fp) {
    long homeless = fp;
    long at = bucket;
    for (int step = 0; step < maxKicks; step++) {
      int s = (int) ((nextRandom() >>> 33) % SLOTS);
      pathBucket[step] = at;
      pathSlot[step] = s;
      pathOld[step] = slot(at, s);
      setSlot(at, s, homeless);
      homeless = pathOld[step];
      at = alternate(at, homeless);
      if (placeInEmptySlot(at, homeless)) {
        return;
      }
    }
    if (stashSize < STASH_CAPACITY) {
      stashBucket[stashSize] = at;
      stashFingerprint[stashSize] = homeless;
      stashSize++;
      return;
    }
    for (int step = maxKicks - 1; step >= 0; step--) {
      setSlot(pathBucket[step], pathSlot[step], pathOld[step]);
    }
    throw new FilterFullException(
        String.format(
            Locale.ROOT,
            "cuckoo filter is full: %,d keys in %,d slots (load %.1f %%) and the stash is full; "
                + "nothing stored was lost, but this key was not added. Build it for more keys",
            count,
            buckets * SLOTS,
            100.0 * count / (buckets * SLOTS)));
  }

  private long nextRandom() {
    long x = random;
    x ^= x << 13;
    x ^= x >>> 7;
    x ^= x << 17;
    random = x;
    return x & Long.MAX_VALUE;
  }

  @Override
  public synchronized boolean remove(long hi, long lo) {
    long fp = fingerprint(lo);
    long b1 = AbstractBloomFilter.reduce(hi, buckets);
    long b2 = alternate(b1, fp);
    int inStash = stashSize > 0 ? stashIndexOf(b1, b2, fp) : -1;
    if (inStash >= 0) {
      stashSize--;
      stashBucket[inStash] = stashBucket[stashSize];
      stashFingerprint[inStash] = stashFingerprint[stashSize];
      count--;
      return true;
    }
    for (long b : new long[] {b1, b2}) {
      for (int s = 0; s < SLOTS; s++) {
        if (slot(b, s) == fp) {
          setSlot(b, s, 0);
          count--;
          refillFromStash();
          return true;
        }
      }
    }
    return false;
  }

  /** A freed slot may take a stashed fingerprint back into the table. */
  private void refillFromStash() {
    for (int i = 0; i < stashSize; i++) {
      long fp = stashFingerprint[i];
      long b = stashBucket[i];
      if (placeInEmptySlot(b, fp) || placeInEmptySlot(alternate(b, fp), fp)) {
        stashSize--;
        stashBucket[i] = stashBucket[stashSize];
        stashFingerprint[i] = stashFingerprint[stashSize];
        i--;
      }
    }
  }

  /** Fingerprint width in bits. */
  public int fingerprintBits() {
    return bits;
  }

  /** Number of buckets (of {@link #SLOTS} slots each). */
  public long bucketCount() {
    return buckets;
  }

  /** Share of slots in use. */
  public synchronized double load() {
    return (double) (count - stashSize) / (buckets * SLOTS);
  }

  @Override
  public synchronized double expectedFpp() {
    double load = (double) count / (buckets * SLOTS);
    return falsePositiveRate(load, bits);
  }

  /** Fingerprints stored (copies included). */
  @Override
  public synchronized long approximateCount() {
    return count;
  }

  @Override
  public long bitSize() {
    return buckets * SLOTS * bits;
  }

  @Override
  public long capacity() {
    return capacity;
  }

  @Override
  public FilterType type() {
    return FilterType.CUCKOO;
  }

  @Override
  public synchronized Map<String, Object> layout() {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("target_fpp", targetFpp);
    m.put("fingerprint_bits", bits);
    m.put("buckets", buckets);
    m.put("slots_per_bucket", SLOTS);
    m.put("load", load());
    m.put("stash", stashSize);
    m.put("bits_per_key_at_capacity", (double) bitSize() / capacity);
    return m;
  }

  /*
   * Parameter block: capacity u64, target fpp f64, buckets u64, fingerprint bits u32, slots per
   * bucket u32 (4), max kicks u32, stash size u32, eviction random state u64, then per stash
   * entry bucket u64 and fingerprint u64. Payload: the slots, f-bit fields packed little-endian,
   * bucket-major. The header count is the number of fingerprints stored. The random state makes
   * a restored filter evict exactly as the original would have.
   */
  @Override
  public synchronized void writeParameters(ByteBuffer out) {
    out.putLong(capacity)
        .putDouble(targetFpp)
        .putLong(buckets)
        .putInt(bits)
        .putInt(SLOTS)
        .putInt(maxKicks)
        .putInt(stashSize)
        .putLong(random);
    for (int i = 0; i < stashSize; i++) {
      out.putLong(stashBucket[i]).putLong(stashFingerprint[i]);
    }
  }

  @Override
  public List<BitArray> payload() {
    return List.of(slots);
  }

  static CuckooFilter restore(ByteBuffer params, long count, Payload payload) throws IOException {
    long capacity = params.getLong();
    double targetFpp = params.getDouble();
    long buckets = params.getLong();
    int bits = params.getInt();
    int slotsPerBucket = params.getInt();
    int maxKicks = params.getInt();
    int stash = params.getInt();
    long random = params.getLong();
    AbstractBloomFilter.checkParameters(capacity, targetFpp);
    if (slotsPerBucket != SLOTS
        || bits < MIN_BITS
        || bits > MAX_BITS
        || buckets < 1
        || (double) buckets * SLOTS * bits > FilterMath.MAX_BITS
        || maxKicks < 0
        || maxKicks > 1 << 20
        || stash < 0
        || stash > STASH_CAPACITY
        || count > buckets * SLOTS + stash
        || random == 0) {
      throw new IllegalArgumentException(
          "buckets="
              + buckets
              + ", f="
              + bits
              + ", slots="
              + slotsPerBucket
              + ", kicks="
              + maxKicks
              + ", stash="
              + stash
              + ", count="
              + count);
    }
    long[] stashBuckets = new long[stash];
    long[] stashFps = new long[stash];
    for (int i = 0; i < stash; i++) {
      stashBuckets[i] = params.getLong();
      stashFps[i] = params.getLong();
      if (stashBuckets[i] < 0
          || stashBuckets[i] >= buckets
          || stashFps[i] < 1
          || stashFps[i] >= 1L << bits) {
        throw new IllegalArgumentException("stash entry " + i + " is out of range");
      }
    }
    BitArray slots = payload.next((buckets * SLOTS * bits + 63) >>> 6);
    CuckooFilter f = new CuckooFilter(capacity, targetFpp, buckets, bits, maxKicks, slots, count);
    System.arraycopy(stashBuckets, 0, f.stashBucket, 0, stash);
    System.arraycopy(stashFps, 0, f.stashFingerprint, 0, stash);
    f.stashSize = stash;
    f.random = random;
    return f;
  }
}
