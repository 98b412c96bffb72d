package dev.idem.core.filter;

import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.util.zip.CRC32C;

/**
 * The in-memory byte form of a {@link BlockedBloomFilter}, for engines that keep state as byte
 * arrays (Flink operator state) rather than files. Like a snapshot file it has a magic number, a
 * version, the parameters and a CRC32C, so a damaged array is refused instead of answering wrongly.
 *
 * <p>Layout, big-endian: magic {@code "IDBF"} u32, version u32, capacity u64, target fpp f64, bit
 * size u64, hash count u32, count u64, then {@code bitSize / 64} words, then the CRC32C of all
 * preceding bytes as u32.
 */
final class BlockedFilterBytes {

  static final int MAGIC = 0x49444246; // "IDBF"
  static final int VERSION = 1;
  static final int HEADER_BYTES = 4 + 4 + 8 + 8 + 8 + 4 + 8;
  /** Header, words and checksum must fit one Java array. */
  static final long MAX_WORDS = (Integer.MAX_VALUE - 8 - HEADER_BYTES - 4) / Long.BYTES;

  private BlockedFilterBytes() {}

  static byte[] encode(BlockedBloomFilter f) {
    long words = f.bits.wordCount();
    if (words > MAX_WORDS) {
      throw new IllegalStateException("a filter of " + f.bitSize() + " bits does not fit one "
          + "byte array (2 GiB); use FilterSnapshot.write to save it to a file instead");
    }
    ByteBuffer b = ByteBuffer.allocate(HEADER_BYTES + (int) words * Long.BYTES + 4);
    b.putInt(MAGIC).putInt(VERSION).putLong(f.capacity()).putDouble(f.targetFpp())
        .putLong(f.bitSize()).putInt(f.hashCount()).putLong(f.approximateCount());
    for (long i = 0; i < words; i++) {
      b.putLong(f.bits.word(i));
    }
    CRC32C crc = new CRC32C();
    crc.update(b.array(), 0, b.position());
    b.putInt((int) crc.getValue());
    return b.array();
  }

  static BlockedBloomFilter decode(byte[] bytes) {
    if (bytes.length < HEADER_BYTES + 4) {
      throw new IllegalArgumentException(
          bytes.length + " bytes is too short for a blocked filter (at least "
              + (HEADER_BYTES + 4) + ")");
    }
    ByteBuffer b = ByteBuffer.wrap(bytes);
    if (b.getInt() != MAGIC) {
      throw new IllegalArgumentException(
          "not a blocked filter written by BlockedBloomFilter.toBytes (bad magic number)");
    }
    int version = b.getInt();
    if (version != VERSION) {
      throw new IllegalArgumentException("blocked filter bytes of version " + version
          + "; this build reads version " + VERSION);
    }
    CRC32C crc = new CRC32C();
    crc.update(bytes, 0, bytes.length - 4);
    if (b.getInt(bytes.length - 4) != (int) crc.getValue()) {
      throw new IllegalArgumentException("blocked filter bytes are corrupt (checksum mismatch)");
    }
    try {
      long capacity = b.getLong();
      double fpp = b.getDouble();
      long bitSize = b.getLong();
      int hashCount = b.getInt();
      long count = b.getLong();
      AbstractBloomFilter.checkParameters(capacity, fpp);
      long words = bitSize >>> 6;
      if (bitSize < 1 || bitSize % FilterMath.BLOCK_BITS != 0 || hashCount < 1 || count < 0
          || HEADER_BYTES + words * Long.BYTES + 4 != bytes.length) {
        throw new IllegalArgumentException("bits=" + bitSize + ", k=" + hashCount + ", count="
            + count + " do not match an array of " + bytes.length + " bytes");
      }
      long[] w = new long[(int) words];
      b.asLongBuffer().get(w);
      return new BlockedBloomFilter(capacity, fpp, bitSize, hashCount, HeapBitArray.wrap(w),
          count);
    } catch (BufferUnderflowException e) {
      throw new IllegalArgumentException("blocked filter bytes are truncated", e);
    }
  }
}
