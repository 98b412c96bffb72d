package dev.idem.core.filter;

import java.io.IOException;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.WritableByteChannel;
import java.util.zip.CRC32C;

/**
 * Bits in a private (copy-on-write) memory map of a snapshot file: loading costs no heap and no
 * copy, pages are read on first touch, and puts change only this process's pages, never the file.
 *
 * <p>A map is limited to 2 GiB, so the payload is split into 1 GiB chunks; a chunk holds a whole
 * number of 64-byte blocks, so no block of a {@link BlockedBloomFilter} straddles two chunks. The
 * snapshot format aligns the payload to 64 bytes, which keeps every word 8-byte aligned as atomic
 * operations on a buffer require.
 */
final class MappedBitArray extends BitArray {

  private static final VarHandle LONGS =
      MethodHandles.byteBufferViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);
  private static final int CHUNK_SHIFT = 30;
  private static final int WORDS_PER_CHUNK_SHIFT = CHUNK_SHIFT - 3;
  private static final long WORD_IN_CHUNK_MASK = (1L << WORDS_PER_CHUNK_SHIFT) - 1;

  private final ByteBuffer[] chunks;
  private final long wordCount;

  private MappedBitArray(ByteBuffer[] chunks, long wordCount) {
    this.chunks = chunks;
    this.wordCount = wordCount;
  }

  /** Maps {@code wordCount} words starting at {@code offset} and feeds their bytes to crc. */
  static MappedBitArray map(FileChannel channel, long offset, long wordCount, CRC32C crc)
      throws IOException {
    long bytes = wordCount * Long.BYTES;
    int chunkCount = (int) ((bytes + (1L << CHUNK_SHIFT) - 1) >>> CHUNK_SHIFT);
    ByteBuffer[] chunks = new ByteBuffer[chunkCount];
    for (int i = 0; i < chunkCount; i++) {
      long start = (long) i << CHUNK_SHIFT;
      long size = Math.min(1L << CHUNK_SHIFT, bytes - start);
      MappedByteBuffer map = channel.map(FileChannel.MapMode.PRIVATE, offset + start, size);
      map.order(ByteOrder.LITTLE_ENDIAN);
      crc.update(map.duplicate());
      chunks[i] = map;
    }
    return new MappedBitArray(chunks, wordCount);
  }

  @Override
  long wordCount() {
    return wordCount;
  }

  @Override
  long word(long index) {
    return (long) LONGS.get(chunks[(int) (index >>> WORDS_PER_CHUNK_SHIFT)], byteOffset(index));
  }

  @Override
  long orWord(long index, long mask) {
    return (long)
        LONGS.getAndBitwiseOr(
            chunks[(int) (index >>> WORDS_PER_CHUNK_SHIFT)], byteOffset(index), mask);
  }

  private static int byteOffset(long index) {
    return (int) ((index & WORD_IN_CHUNK_MASK) << 3);
  }

  @Override
  void writeTo(WritableByteChannel out, CRC32C crc) throws IOException {
    for (ByteBuffer chunk : chunks) {
      ByteBuffer view = chunk.duplicate().clear();
      crc.update(view.duplicate());
      while (view.hasRemaining()) {
        out.write(view);
      }
    }
  }
}
