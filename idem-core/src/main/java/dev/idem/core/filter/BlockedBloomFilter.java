package dev.idem.core.filter;

/**
 * A blocked Bloom filter (Putze, Sanders, Singler 2007): the key's {@code hi} half picks one
 * 512-bit block, a 64-byte cache line, and all {@code k} positions lie inside it. Every operation
 * costs one cache miss instead of {@code k}; the price is more bits for the same rate, because
 * block loads vary. {@link FilterMath#blockedLayout} sizes it with the blocked formula, so the rate
 * at capacity is at most the target.
 *
 * <p>Positions inside the block come from the {@code lo} half multiplied by a fixed odd constant
 * per position, top 9 bits: each position is uniform on its own, and unlike double hashing in so
 * small a range, no key can land all its positions on one or two bits.
 */
public final class BlockedBloomFilter extends AbstractBloomFilter {

  /** One odd multiplier per position; from SplitMix64, so unrelated to each other. */
  private static final long[] SALTS = {
    0x8D8CDC46A82F167FL, 0xE554458AD8C4696FL, 0xDA838CC49355ACDFL, 0xC62E74E40E6B802DL,
    0x185607467CB8D735L, 0x038FDC5E70DCC9BBL, 0x0FB6BE61A3EE964FL, 0x2512B5AD85C57D13L,
    0x040279FA047175AFL, 0xD364A0A3A1C6B6CDL, 0xECB25824CF92B929L, 0xDFFF8B7194E80F37L,
    0xFB1DFFB96FF94693L, 0xCB4A733D23109D59L, 0x47E3600F3CFAE17FL, 0x88265006E155C64BL,
    0x597097FE9A441FF3L, 0x81BC9D8824206257L, 0xD08DADEDEC634FD7L, 0x15FDBC27A89B3121L,
    0x804700A61948F69DL, 0xAEFC4749E047EE3FL, 0x7CC98C0AD39AA1E7L, 0x2DA505E9EFF22E93L,
    0x91AFB404C3FD56C1L, 0x4B6B7C0AB846F871L, 0x819937E915C52DB7L, 0x6365B402B01C6F31L,
    0xF420A937492E77D9L, 0x47DFE93DE7200F41L, 0xD7AC188D26A5A5EFL, 0x92DB4B6FBD7A15DDL,
  };

  private static final int BLOCK_SHIFT = 9; // 512 bits
  private static final int POSITION_SHIFT = Long.SIZE - BLOCK_SHIFT;

  private final long blockCount;

  BlockedBloomFilter(
      long capacity, double targetFpp, long bitSize, int hashCount, BitArray bits, long count) {
    super(capacity, targetFpp, bitSize, hashCount, bits, count);
    if (bitSize % FilterMath.BLOCK_BITS != 0 || hashCount > SALTS.length) {
      throw new IllegalArgumentException(
          "a blocked filter needs a multiple of 512 bits and at most "
              + SALTS.length
              + " positions per key, got "
              + bitSize
              + " bits and k="
              + hashCount);
    }
    this.blockCount = bitSize >>> BLOCK_SHIFT;
  }

  /** A filter for {@code expectedKeys} keys whose rate at capacity is at most {@code fpp}. */
  public static BlockedBloomFilter create(long expectedKeys, double fpp) {
    FilterLayout layout = FilterMath.blockedLayout(expectedKeys, fpp);
    return new BlockedBloomFilter(
        expectedKeys,
        fpp,
        layout.bitSize(),
        layout.hashCount(),
        HeapBitArray.allocate(layout.bitSize()),
        0);
  }

  /**
   * True when {@code other} has the same layout (bits and positions per key), so that {@link
   * #unionWith} may OR it into this one. Filters created with the same expected keys and rate
   * always do.
   */
  public boolean hasSameLayout(BlockedBloomFilter other) {
    return bitSize == other.bitSize && hashCount == other.hashCount;
  }

  /**
   * ORs {@code other} into this filter: afterwards this filter answers "maybe" for every key either
   * held, so it keeps the no-false-negative promise for both. The false-positive rate becomes that
   * of the two key sets together. The count becomes the sum of both counts, an upper bound of the
   * distinct keys (keys in both are counted twice), so {@link #expectedFpp()} errs high. Stop
   * writers of {@code other} first.
   *
   * @throws IllegalArgumentException when the layouts differ (see {@link #hasSameLayout})
   */
  public void unionWith(BlockedBloomFilter other) {
    if (!hasSameLayout(other)) {
      throw new IllegalArgumentException(
          "cannot OR a blocked filter of "
              + other.bitSize
              + " bits and k="
              + other.hashCount
              + " into one of "
              + bitSize
              + " bits and k="
              + hashCount
              + ": only filters created with the same expected keys and rate can be "
              + "combined; create both with the same BlockedBloomFilter.create(n, p)");
    }
    for (long i = 0, n = bits.wordCount(); i < n; i++) {
      long w = other.bits.word(i);
      if (w != 0) {
        bits.orWord(i, w);
      }
    }
    addCount(other.approximateCount());
  }

  /** Number of 512-bit blocks. */
  public long blockCount() {
    return blockCount;
  }

  @Override
  public boolean put(long hi, long lo) {
    long blockStart = reduce(hi, blockCount) << BLOCK_SHIFT;
    boolean changed = false;
    for (int i = 0; i < hashCount; i++) {
      changed |= bits.set(blockStart + ((lo * SALTS[i]) >>> POSITION_SHIFT));
    }
    return counted(changed);
  }

  @Override
  public boolean mightContain(long hi, long lo) {
    long blockStart = reduce(hi, blockCount) << BLOCK_SHIFT;
    for (int i = 0; i < hashCount; i++) {
      if (!bits.get(blockStart + ((lo * SALTS[i]) >>> POSITION_SHIFT))) {
        return false;
      }
    }
    return true;
  }

  /**
   * Reads the block's first and last word. In a heap array the words start 16 bytes into the
   * object, so a block spans two cache lines; reading only the first left the second one's miss to
   * the probe, one key at a time. (In a memory-mapped snapshot both words share a line.)
   */
  @Override
  long touch(long hi, long lo) {
    long first = reduce(hi, blockCount) << (BLOCK_SHIFT - 6);
    return bits.word(first) ^ bits.word(first + 7);
  }

  @Override
  public double falsePositiveRate(long n) {
    return FilterMath.blockedFalsePositiveRate(n, blockCount, hashCount);
  }

  @Override
  public FilterType type() {
    return FilterType.BLOCKED;
  }
}
