package dev.idem.core.filter;

/**
 * The shape chosen for a filter: how many bits, how many positions per key, and the false-positive
 * rate that shape gives at the capacity it was chosen for.
 *
 * @param bitSize number of addressable bits (for a blocked filter a multiple of 512, for a
 *     partitioned one a multiple of the hash count)
 * @param hashCount positions set per key ({@code k})
 * @param expectedFpp the false-positive rate predicted by the filter type's own formula when
 *     exactly the capacity has been inserted
 */
public record FilterLayout(long bitSize, int hashCount, double expectedFpp) {

  /** Bits per key at the given capacity. */
  public double bitsPerKey(long capacity) {
    return (double) bitSize / capacity;
  }
}
