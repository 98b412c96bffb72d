package dev.idem.core.filter;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.LongAdder;

/**
 * What the Bloom filters of idem share: a bit array, {@code k} positions per key derived from the
 * fingerprint, the capacity and target rate they were sized for, and a count of changing puts.
 *
 * <p>Positions come from the fingerprint alone (enhanced double hashing, Dillinger–Manolios: {@code
 * x += y; y += i}) and are mapped to a range by Lemire's multiply-shift, which uses the high bits
 * of each 64-bit value; no key is hashed twice.
 */
public abstract sealed class AbstractBloomFilter implements MembershipFilter, SnapshotSupport
    permits BloomFilter, BlockedBloomFilter, PartitionedBloomFilter {

  final BitArray bits;
  final long bitSize;
  final int hashCount;
  private final long capacity;
  private final double targetFpp;
  private final LongAdder changingPuts = new LongAdder();

  /** Written by the batch operations so the JIT cannot drop their prefetching loads. */
  @SuppressWarnings("unused")
  private long prefetchSink;

  AbstractBloomFilter(
      long capacity, double targetFpp, long bitSize, int hashCount, BitArray bits, long count) {
    if (bits.wordCount() * Long.SIZE < bitSize) {
      throw new IllegalArgumentException(
          "bit array of " + bits.wordCount() + " words cannot hold " + bitSize + " bits");
    }
    this.capacity = capacity;
    this.targetFpp = targetFpp;
    this.bitSize = bitSize;
    this.hashCount = hashCount;
    this.bits = bits;
    this.changingPuts.add(count);
  }

  /** Positions set per key ({@code k}). */
  public final int hashCount() {
    return hashCount;
  }

  @Override
  public final long capacity() {
    return capacity;
  }

  /** The false-positive rate asked for at {@link #capacity()}. */
  public final double targetFpp() {
    return targetFpp;
  }

  /** The rate this layout gives with {@code n} keys, by the type's own formula. */
  public abstract double falsePositiveRate(long n);

  @Override
  public final double expectedFpp() {
    return falsePositiveRate(approximateCount());
  }

  @Override
  public final long approximateCount() {
    return changingPuts.sum();
  }

  @Override
  public final long bitSize() {
    return bitSize;
  }

  @Override
  public Map<String, Object> layout() {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("target_fpp", targetFpp);
    m.put("hash_count", hashCount);
    m.put("bits_per_key_at_capacity", (double) bitSize / capacity);
    return m;
  }

  /*
   * Parameter block (32 bytes): capacity u64, target fpp f64, bit size u64, hash count u32,
   * reserved u32 (zero). Payload: the bit array, ceil(bits / 64) words.
   */
  @Override
  public final void writeParameters(ByteBuffer out) {
    out.putLong(capacity).putDouble(targetFpp).putLong(bitSize).putInt(hashCount).putInt(0);
  }

  @Override
  public final List<BitArray> payload() {
    return List.of(bits);
  }

  static AbstractBloomFilter restore(
      FilterType type, ByteBuffer params, long count, Payload payload) throws IOException {
    long capacity = params.getLong();
    double targetFpp = params.getDouble();
    long bitSize = params.getLong();
    int hashCount = params.getInt();
    int reserved = params.getInt();
    checkParameters(capacity, targetFpp);
    if (bitSize < 1 || bitSize > FilterMath.MAX_BITS || hashCount < 1 || reserved != 0) {
      throw new IllegalArgumentException(
          "bits=" + bitSize + ", k=" + hashCount + ", reserved=" + reserved);
    }
    BitArray bits = payload.next((bitSize + 63) >>> 6);
    return switch (type) {
      case BLOOM -> new BloomFilter(capacity, targetFpp, bitSize, hashCount, bits, count);
      case BLOCKED -> new BlockedBloomFilter(capacity, targetFpp, bitSize, hashCount, bits, count);
      case PARTITIONED ->
          new PartitionedBloomFilter(capacity, targetFpp, bitSize, hashCount, bits, count);
      default -> throw new IllegalArgumentException(type + " is not a Bloom filter type");
    };
  }

  /** Checks a restored capacity and target rate. */
  static void checkParameters(long capacity, double targetFpp) {
    if (capacity < 1 || !(targetFpp > 0 && targetFpp < 1)) {
      throw new IllegalArgumentException("capacity=" + capacity + ", fpp=" + targetFpp);
    }
  }

  /** Share of bits set, from a full scan. */
  public final double fillRatio() {
    return (double) bits.bitCount() / bitSize;
  }

  /** Adds {@code puts} changing puts at once (a union of two filters). */
  final void addCount(long puts) {
    changingPuts.add(puts);
  }

  /** Counts a put; returns {@code changed}. */
  final boolean counted(boolean changed) {
    if (changed) {
      changingPuts.increment();
    }
    return changed;
  }

  /**
   * Reads the word of a key's first position, so that a batch of keys has its first cache misses in
   * flight at once. Returns a value derived from the word.
   */
  abstract long touch(long hi, long lo);

  @Override
  public final void putAll(long[] fingerprints, int from, int to, boolean[] changed) {
    prefetch(fingerprints, from, to);
    for (int i = from; i < to; i++) {
      changed[i] = put(fingerprints[2 * i], fingerprints[2 * i + 1]);
    }
  }

  @Override
  public final void mightContainAll(long[] fingerprints, int from, int to, boolean[] results) {
    prefetch(fingerprints, from, to);
    for (int i = from; i < to; i++) {
      results[i] = mightContain(fingerprints[2 * i], fingerprints[2 * i + 1]);
    }
  }

  @Override
  public final void prefetch(long[] fingerprints, int from, int to) {
    long sink = 0;
    for (int i = from; i < to; i++) {
      sink ^= touch(fingerprints[2 * i], fingerprints[2 * i + 1]);
    }
    prefetchSink = sink;
  }

  /** Maps a uniform 64-bit value to {@code [0, n)} by its high bits (Lemire's multiply-shift). */
  static long reduce(long hash, long n) {
    // unsigned high word of hash·n; n is positive so only hash's sign needs correcting
    return Math.multiplyHigh(hash, n) + ((hash >> 63) & n);
  }

  @Override
  public String toString() {
    return String.format(
        java.util.Locale.ROOT,
        "%s{capacity=%d, targetFpp=%s, bits=%d, k=%d, count=%d}",
        type().displayName(),
        capacity,
        targetFpp,
        bitSize,
        hashCount,
        approximateCount());
  }
}
