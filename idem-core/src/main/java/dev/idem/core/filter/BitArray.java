package dev.idem.core.filter;

import java.io.IOException;
import java.nio.channels.WritableByteChannel;
import java.util.zip.CRC32C;

/**
 * The bits of a filter, addressed by {@code long} so that filters may exceed 2<sup>31</sup> bits.
 *
 * <p>Concurrency contract: {@link #set} is an atomic OR, so threads that set bits concurrently
 * never lose one; reads are plain, so a reader sees a bit set by another thread eventually, and
 * immediately once the two synchronise. Bits are never cleared.
 *
 * <p>Two layouts exist: words in a heap {@code long[]}, and words in a copy-on-write memory map of
 * a snapshot file. Filters see only this class; the JIT inlines both.
 */
abstract class BitArray {

  /** Number of 64-bit words. */
  abstract long wordCount();

  /** Word {@code index}, read plainly. */
  abstract long word(long index);

  /** Atomically ORs {@code mask} into word {@code index} and returns the previous word. */
  abstract long orWord(long index, long mask);

  /** Writes word {@code index} plainly; for structures that hold a lock while they write. */
  abstract void setWord(long index, long value);

  /**
   * Writes every word, little-endian, to {@code out}, feeding the same bytes to {@code crc}.
   * Callers must stop writers first: a concurrent set may or may not be included.
   */
  abstract void writeTo(WritableByteChannel out, CRC32C crc) throws IOException;

  final boolean get(long bitIndex) {
    return (word(bitIndex >>> 6) & (1L << bitIndex)) != 0;
  }

  /** Sets a bit; true when it was clear before (so the caller changed the filter). */
  final boolean set(long bitIndex) {
    long index = bitIndex >>> 6;
    long mask = 1L << bitIndex;
    // Most sets of a duplicate key find the bit already set: a plain read avoids the locked op.
    if ((word(index) & mask) != 0) {
      return false;
    }
    return (orWord(index, mask) & mask) == 0;
  }

  /**
   * The {@code width}-bit field (1 to 64 bits) starting at bit {@code bitOffset}, which may span
   * two words; fields are little-endian within and across words.
   */
  final long field(long bitOffset, int width) {
    long index = bitOffset >>> 6;
    int shift = (int) (bitOffset & 63);
    long value = word(index) >>> shift;
    if (shift + width > 64) {
      value |= word(index + 1) << (64 - shift);
    }
    return width == 64 ? value : value & ((1L << width) - 1);
  }

  /** Writes a field read by {@link #field}; plain writes, so callers hold a lock. */
  final void setField(long bitOffset, int width, long value) {
    long mask = width == 64 ? -1L : (1L << width) - 1;
    long index = bitOffset >>> 6;
    int shift = (int) (bitOffset & 63);
    long v = value & mask;
    setWord(index, (word(index) & ~(mask << shift)) | (v << shift));
    if (shift + width > 64) {
      int spill = shift + width - 64; // bits that live in the next word
      long spillMask = (1L << spill) - 1;
      setWord(index + 1, (word(index + 1) & ~spillMask) | (v >>> (64 - shift)));
    }
  }

  /** Number of set bits (a full scan). */
  final long bitCount() {
    long count = 0;
    for (long i = 0, n = wordCount(); i < n; i++) {
      count += Long.bitCount(word(i));
    }
    return count;
  }
}
