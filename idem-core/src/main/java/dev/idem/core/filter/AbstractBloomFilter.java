package dev.idem.core.filter;

import java.util.concurrent.atomic.LongAdder;

/**
 * What the Bloom filters of idem share: a bit array, {@code k} positions per key derived from the
 * fingerprint, the capacity and target rate they were sized for, and a count of changing puts.
 *
 * <p>Positions come from the fingerprint alone (enhanced double hashing, Dillinger–Manolios:
 * {@code x += y; y += i}) and are mapped to a range by Lemire's multiply-shift, which uses the high
 * bits of each 64-bit value; no key is hashed twice.
 */
public abstract sealed class AbstractBloomFilter implements MembershipFilter
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

  /** The number of keys this filter was sized for. */
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

  /** Share of bits set, from a full scan. */
  public final double fillRatio() {
    return (double) bits.bitCount() / bitSize;
  }

  /** Counts a put; returns {@code changed}. */
  final boolean counted(boolean changed) {
    if (changed) {
      changingPuts.increment();
    }
    return changed;
  }

  /**
   * Reads the words a key's positions live in, without branches, so that a batch of keys has all
   * its cache misses in flight at once. Returns a value derived from the words.
   */
  abstract long touch(long hi, long lo);

  @Override
  public final void putAll(long[] fingerprints, int count, boolean[] changed) {
    prefetch(fingerprints, count);
    for (int i = 0; i < count; i++) {
      changed[i] = put(fingerprints[2 * i], fingerprints[2 * i + 1]);
    }
  }

  @Override
  public final void mightContainAll(long[] fingerprints, int count, boolean[] results) {
    prefetch(fingerprints, count);
    for (int i = 0; i < count; i++) {
      results[i] = mightContain(fingerprints[2 * i], fingerprints[2 * i + 1]);
    }
  }

  private void prefetch(long[] fingerprints, int count) {
    long sink = 0;
    for (int i = 0; i < count; i++) {
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
        type().displayName(), capacity, targetFpp, bitSize, hashCount, approximateCount());
  }
}
