package dev.idem.core.filter;

/**
 * The classic Bloom filter: {@code k} positions anywhere in {@code m} bits, sized exactly by {@link
 * FilterMath#classicLayout} ({@code m = ceil(-n·ln p / (ln 2)²)}, {@code k = round((m/n)·ln 2)}).
 * The smallest of the family for a given rate; each operation touches up to {@code k} cache lines.
 *
 * <p>Because {@code k} is rounded to a whole number, the rate at capacity can be a little above the
 * target (0.1006 % for a 0.1 % target); {@link #expectedFpp()} reports the real figure.
 */
public final class BloomFilter extends AbstractBloomFilter {

  BloomFilter(
      long capacity, double targetFpp, long bitSize, int hashCount, BitArray bits, long count) {
    super(capacity, targetFpp, bitSize, hashCount, bits, count);
  }

  /**
   * A filter for {@code expectedKeys} distinct keys at false-positive rate {@code fpp}.
   *
   * @throws IllegalArgumentException for a non-positive key count, a rate outside (0, 1) or a
   *     filter larger than {@link FilterMath#MAX_BITS}
   * @throws IllegalStateException when the heap cannot hold it
   */
  public static BloomFilter create(long expectedKeys, double fpp) {
    FilterLayout layout = FilterMath.classicLayout(expectedKeys, fpp);
    return new BloomFilter(
        expectedKeys,
        fpp,
        layout.bitSize(),
        layout.hashCount(),
        HeapBitArray.allocate(layout.bitSize()),
        0);
  }

  @Override
  public boolean put(long hi, long lo) {
    boolean changed = false;
    long x = hi;
    long y = lo;
    for (int i = 0; i < hashCount; i++) {
      changed |= bits.set(reduce(x, bitSize));
      x += y;
      y += i;
    }
    return counted(changed);
  }

  @Override
  public boolean mightContain(long hi, long lo) {
    long x = hi;
    long y = lo;
    for (int i = 0; i < hashCount; i++) {
      if (!bits.get(reduce(x, bitSize))) {
        return false;
      }
      x += y;
      y += i;
    }
    return true;
  }

  @Override
  long touch(long hi, long lo) {
    // only the first position: a negative query usually stops after one or two probes
    return bits.word(reduce(hi, bitSize) >>> 6);
  }

  @Override
  public double falsePositiveRate(long n) {
    return FilterMath.falsePositiveRate(n, bitSize, hashCount);
  }

  @Override
  public FilterType type() {
    return FilterType.BLOOM;
  }
}
