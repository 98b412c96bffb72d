package dev.idem.core.filter;

import java.io.IOException;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.channels.WritableByteChannel;
import java.util.zip.CRC32C;

/**
 * Bits in a private (copy-on-write) memory map of a snapshot file: loading costs no heap and no
 * copy, pages are read on first touch, and puts change only this process's pages, never the file.
 *
 * <p>An array is a view of a {@link MappedPayload}, the map of a whole snapshot's payload. A map is
 * limited to 2 GiB, so the payload is split into 1 GiB chunks; a chunk holds a whole number of
 * 64-byte blocks, so no block of a {@link BlockedBloomFilter} straddles two chunks. The snapshot
 * format aligns the payload and every array in it to 64 bytes, which keeps every word 8-byte
 * aligned as atomic operations on a buffer require.
 *
 * <p>When the snapshot carries page checksums, the payload was not checksummed at load: every
 * access first verifies the page it falls in ({@link MappedPayload#check}), once per page, so no
 * answer ever rests on bytes that were not verified, and a damaged page throws {@link
 * SnapshotDamagedException} instead.
 */
final class MappedBitArray extends BitArray {

  private static final VarHandle LONGS =
      MethodHandles.byteBufferViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);

  /** log2 of the chunk size: 1 GiB. */
  static final int CHUNK_SHIFT = 30;

  private final MappedPayload payload;
  private final ByteBuffer[] chunks;
  private final long firstWord;
  private final long wordCount;
  private final int wordShift;
  private final long wordInChunkMask;
  private final boolean guarded;

  MappedBitArray(MappedPayload payload, long firstWord, long wordCount) {
    this.payload = payload;
    this.chunks = payload.chunks();
    this.firstWord = firstWord;
    this.wordCount = wordCount;
    this.wordShift = payload.chunkShift() - 3;
    this.wordInChunkMask = (1L << wordShift) - 1;
    this.guarded = payload.guarded();
  }

  /**
   * Maps {@code wordCount} words starting at {@code offset} and feeds their bytes to crc (the whole
   * range is read once, through read(), and verified by the caller).
   */
  static MappedBitArray map(FileChannel channel, long offset, long wordCount, CRC32C crc)
      throws IOException {
    return map(channel, offset, wordCount, crc, CHUNK_SHIFT);
  }

  /** As {@link #map(FileChannel, long, long, CRC32C)} with chunks of 2^chunkShift bytes (≥ 64). */
  static MappedBitArray map(
      FileChannel channel, long offset, long wordCount, CRC32C crc, int chunkShift)
      throws IOException {
    MappedPayload p = MappedPayload.map(null, channel, offset, wordCount, chunkShift, null);
    MappedPayload.checksum(channel, offset, wordCount * Long.BYTES, crc);
    return new MappedBitArray(p, 0, wordCount);
  }

  @Override
  long wordCount() {
    return wordCount;
  }

  /** Verifies the page of word {@code index} if it is not yet (a no-op without page checksums). */
  void check(long index) {
    if (guarded) {
      payload.check(firstWord + index);
    }
  }

  /** Word {@code index} without verifying its page: the caller {@link #check checked} it. */
  long rawWord(long index) {
    long w = firstWord + index;
    return (long) LONGS.get(chunks[(int) (w >>> wordShift)], byteOffset(w));
  }

  @Override
  long word(long index) {
    check(index);
    return rawWord(index);
  }

  @Override
  long orWord(long index, long mask) {
    check(index);
    long w = firstWord + index;
    return (long) LONGS.getAndBitwiseOr(chunks[(int) (w >>> wordShift)], byteOffset(w), mask);
  }

  @Override
  void setWord(long index, long value) {
    check(index);
    long w = firstWord + index;
    LONGS.set(chunks[(int) (w >>> wordShift)], byteOffset(w), value);
  }

  private int byteOffset(long word) {
    return (int) ((word & wordInChunkMask) << 3);
  }

  /** The file this array was mapped from, when known. */
  java.nio.file.Path file() {
    return payload.file();
  }

  @Override
  void writeTo(WritableByteChannel out, CRC32C crc) throws IOException {
    if (guarded) {
      // a page never verified must not be written on with a fresh checksum
      payload.checkRange(firstWord, wordCount);
    }
    long bytes = wordCount * Long.BYTES;
    long start = firstWord * Long.BYTES;
    int chunkShift = payload.chunkShift();
    for (long done = 0; done < bytes; ) {
      long at = start + done;
      ByteBuffer chunk = chunks[(int) (at >>> chunkShift)];
      int from = (int) (at & ((1L << chunkShift) - 1));
      int n = (int) Math.min(bytes - done, chunk.capacity() - from);
      ByteBuffer view = chunk.duplicate().clear().position(from).limit(from + n);
      crc.update(view.duplicate());
      while (view.hasRemaining()) {
        out.write(view);
      }
      done += n;
    }
  }
}
