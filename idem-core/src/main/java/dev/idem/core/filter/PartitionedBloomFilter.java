package dev.idem.core.filter;

/**
 * A partitioned Bloom filter: the bits are cut into {@code k} equal slices and each key sets
 * exactly one position per slice (the "combinatorial" structure: k steps, one bit array per step).
 * Positions of one key never coincide, and the slices can live in separate memory; the price is a
 * slightly higher rate than classic at equal size, which {@link FilterMath#partitionedLayout} pays
 * for with a few more bits so the target is met.
 */
public final class PartitionedBloomFilter extends AbstractBloomFilter {

  private final long sliceBits;

  PartitionedBloomFilter(
      long capacity, double targetFpp, long bitSize, int hashCount, BitArray bits, long count) {
    super(capacity, targetFpp, bitSize, hashCount, bits, count);
    if (bitSize % hashCount != 0) {
      throw new IllegalArgumentException(
          "a partitioned filter's bit count must be a multiple of its hash count, got "
              + bitSize
              + " bits and k="
              + hashCount);
    }
    this.sliceBits = bitSize / hashCount;
  }

  /** A filter for {@code expectedKeys} keys whose rate at capacity is at most {@code fpp}. */
  public static PartitionedBloomFilter create(long expectedKeys, double fpp) {
    FilterLayout layout = FilterMath.partitionedLayout(expectedKeys, fpp);
    return new PartitionedBloomFilter(
        expectedKeys,
        fpp,
        layout.bitSize(),
        layout.hashCount(),
        HeapBitArray.allocate(layout.bitSize()),
        0);
  }

  /** Bits in each of the {@code k} slices. */
  public long sliceBits() {
    return sliceBits;
  }

  @Override
  public boolean put(long hi, long lo) {
    boolean changed = false;
    long x = hi;
    long y = lo;
    long sliceStart = 0;
    for (int i = 0; i < hashCount; i++) {
      changed |= bits.set(sliceStart + reduce(x, sliceBits));
      sliceStart += sliceBits;
      x += y;
      y += i;
    }
    return counted(changed);
  }

  @Override
  public boolean mightContain(long hi, long lo) {
    long x = hi;
    long y = lo;
    long sliceStart = 0;
    for (int i = 0; i < hashCount; i++) {
      if (!bits.get(sliceStart + reduce(x, sliceBits))) {
        return false;
      }
      sliceStart += sliceBits;
      x += y;
      y += i;
    }
    return true;
  }

  @Override
  long touch(long hi, long lo) {
    // only the first slice: a negative query usually stops after one or two probes
    return bits.word(reduce(hi, sliceBits) >>> 6);
  }

  @Override
  public double falsePositiveRate(long n) {
    return FilterMath.partitionedFalsePositiveRate(n, sliceBits, hashCount);
  }

  @Override
  public FilterType type() {
    return FilterType.PARTITIONED;
  }
}
