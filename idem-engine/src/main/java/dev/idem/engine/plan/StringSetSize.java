package dev.idem.engine.plan;

/**
 * Heap of a {@code java.util.HashSet<String>} holding keys, on a 64-bit HotSpot JVM with compressed
 * references (heaps under 32 GiB) and compact Latin-1 strings: the naive baseline of the plan
 * table. Per key: the {@code String} (24 bytes), its {@code byte[]} (16-byte header plus the bytes,
 * rounded up to 8), the map's node (32), and its share of the table (4 bytes a slot, a power of two
 * at least n / 0.75). A test checks this against the measured heap.
 */
final class StringSetSize {

  private StringSetSize() {}

  static long bytes(long keys, double meanKeyBytes) {
    long perString = 24 + align8(16 + (long) Math.ceil(meanKeyBytes));
    long table = Long.highestOneBit(Math.max(1, (long) Math.ceil(keys / 0.75) - 1)) << 1;
    return keys * (perString + 32) + 4 * table;
  }

  private static long align8(long bytes) {
    return (bytes + 7) & ~7L;
  }
}
