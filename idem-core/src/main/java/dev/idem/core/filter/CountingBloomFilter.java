package dev.idem.core.filter;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A counting Bloom filter (Fan et al. 2000): a classic Bloom filter whose bits are small counters,
 * so that keys can be removed. Sized like {@link BloomFilter} ({@code m} counters, {@code k}
 * positions, rate {@code (1 - e^(-k·n/m))^k}), so it costs 4 or 8 times the memory.
 *
 * <p>Counters are 4 bits (default; overflow needs ~15 keys on one counter, rare at sensible loads)
 * or 8 bits. <b>A counter that reaches its maximum stays there</b>: it is never incremented past
 * nor decremented again, since its true value is no longer known; decrementing it could later
 * produce a false negative. So removal never causes a false negative, and a saturated counter only
 * costs a little accuracy.
 *
 * <p>Thread-safe: every method takes the filter's lock.
 */
public final class CountingBloomFilter implements DeletableFilter, SnapshotSupport {

  private final BitArray counters;
  private final long counterCount;
  private final int counterBits;
  private final long counterMax;
  private final int hashCount;
  private final long capacity;
  private final double targetFpp;
  private long count;

  private CountingBloomFilter(
      long capacity,
      double targetFpp,
      long counterCount,
      int hashCount,
      int counterBits,
      BitArray counters,
      long count) {
    if (counterBits != 4 && counterBits != 8) {
      throw new IllegalArgumentException("counters must be 4 or 8 bits wide, got " + counterBits);
    }
    if (counters.wordCount() * Long.SIZE < counterCount * counterBits) {
      throw new IllegalArgumentException("payload too small for " + counterCount + " counters");
    }
    this.capacity = capacity;
    this.targetFpp = targetFpp;
    this.counterCount = counterCount;
    this.hashCount = hashCount;
    this.counterBits = counterBits;
    this.counterMax = (1L << counterBits) - 1;
    this.counters = counters;
    this.count = count;
  }

  /** A filter with 4-bit counters for {@code expectedKeys} keys at rate {@code fpp}. */
  public static CountingBloomFilter create(long expectedKeys, double fpp) {
    return create(expectedKeys, fpp, 4);
  }

  /**
   * A filter with {@code counterBits}-bit counters (4 or 8) for {@code expectedKeys} keys at rate
   * {@code fpp}.
   */
  public static CountingBloomFilter create(long expectedKeys, double fpp, int counterBits) {
    FilterLayout layout = FilterMath.classicLayout(expectedKeys, fpp);
    if (counterBits != 4 && counterBits != 8) {
      throw new IllegalArgumentException("counters must be 4 or 8 bits wide, got " + counterBits);
    }
    if (layout.bitSize() > FilterMath.MAX_BITS / counterBits) {
      throw new IllegalArgumentException(
          "a counting filter for "
              + expectedKeys
              + " keys at "
              + fpp
              + " needs more than the largest array; accept a higher rate or shard the keys");
    }
    return new CountingBloomFilter(
        expectedKeys,
        fpp,
        layout.bitSize(),
        layout.hashCount(),
        counterBits,
        HeapBitArray.allocate(layout.bitSize() * counterBits),
        0);
  }

  private long counter(long index) {
    return counters.field(index * counterBits, counterBits);
  }

  private void setCounter(long index, long value) {
    counters.setField(index * counterBits, counterBits, value);
  }

  /** Stores the key only when the filter answers "certainly new"; see {@link DeletableFilter}. */
  @Override
  public synchronized boolean put(long hi, long lo) {
    return !mightContain(hi, lo) && add(hi, lo);
  }

  @Override
  public synchronized boolean add(long hi, long lo) {
    boolean absent = false;
    long x = hi;
    long y = lo;
    for (int i = 0; i < hashCount; i++) {
      long index = AbstractBloomFilter.reduce(x, counterCount);
      long c = counter(index);
      absent |= c == 0;
      if (c < counterMax) {
        setCounter(index, c + 1);
      }
      x += y;
      y += i;
    }
    count++;
    return absent;
  }

  @Override
  public synchronized boolean remove(long hi, long lo) {
    if (!mightContain(hi, lo)) {
      return false;
    }
    long x = hi;
    long y = lo;
    for (int i = 0; i < hashCount; i++) {
      long index = AbstractBloomFilter.reduce(x, counterCount);
      long c = counter(index);
      // saturated counters keep their value; a position repeated within one key may reach 0
      if (c > 0 && c < counterMax) {
        setCounter(index, c - 1);
      }
      x += y;
      y += i;
    }
    count = Math.max(0, count - 1);
    return true;
  }

  @Override
  public synchronized boolean mightContain(long hi, long lo) {
    long x = hi;
    long y = lo;
    for (int i = 0; i < hashCount; i++) {
      if (counter(AbstractBloomFilter.reduce(x, counterCount)) == 0) {
        return false;
      }
      x += y;
      y += i;
    }
    return true;
  }

  /** The number of counters that reached their maximum and are frozen (a full scan). */
  public synchronized long saturatedCounters() {
    long saturated = 0;
    for (long i = 0; i < counterCount; i++) {
      saturated += counter(i) == counterMax ? 1 : 0;
    }
    return saturated;
  }

  /** Width of each counter in bits. */
  public int counterBits() {
    return counterBits;
  }

  /** Positions per key ({@code k}). */
  public int hashCount() {
    return hashCount;
  }

  /** The classic rate with {@code n} keys present. */
  public double falsePositiveRate(long n) {
    return FilterMath.falsePositiveRate(n, counterCount, hashCount);
  }

  @Override
  public double expectedFpp() {
    return falsePositiveRate(approximateCount());
  }

  /** Keys added minus keys removed. */
  @Override
  public synchronized long approximateCount() {
    return count;
  }

  @Override
  public long bitSize() {
    return counterCount * counterBits;
  }

  @Override
  public long capacity() {
    return capacity;
  }

  @Override
  public FilterType type() {
    return FilterType.COUNTING;
  }

  @Override
  public Map<String, Object> layout() {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("target_fpp", targetFpp);
    m.put("hash_count", hashCount);
    m.put("counters", counterCount);
    m.put("counter_bits", counterBits);
    m.put("saturated_counters", saturatedCounters());
    m.put("bits_per_key_at_capacity", (double) bitSize() / capacity);
    return m;
  }

  /*
   * Parameter block (32 bytes): capacity u64, target fpp f64, counters u64, hash count u32,
   * counter bits u32. Payload: the counters, packed little-endian, ceil(counters·bits / 64) words.
   * The header count is keys added minus keys removed.
   */
  @Override
  public void writeParameters(ByteBuffer out) {
    out.putLong(capacity)
        .putDouble(targetFpp)
        .putLong(counterCount)
        .putInt(hashCount)
        .putInt(counterBits);
  }

  @Override
  public List<BitArray> payload() {
    return List.of(counters);
  }

  static CountingBloomFilter restore(ByteBuffer params, long count, Payload payload)
      throws IOException {
    long capacity = params.getLong();
    double targetFpp = params.getDouble();
    long counterCount = params.getLong();
    int hashCount = params.getInt();
    int counterBits = params.getInt();
    AbstractBloomFilter.checkParameters(capacity, targetFpp);
    if (counterCount < 1
        || hashCount < 1
        || (counterBits != 4 && counterBits != 8)
        || counterCount > FilterMath.MAX_BITS / counterBits) {
      throw new IllegalArgumentException(
          "counters=" + counterCount + ", k=" + hashCount + ", counter bits=" + counterBits);
    }
    BitArray counters = payload.next((counterCount * counterBits + 63) >>> 6);
    return new CountingBloomFilter(
        capacity, targetFpp, counterCount, hashCount, counterBits, counters, count);
  }
}
