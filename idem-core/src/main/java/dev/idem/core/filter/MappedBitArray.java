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

  /** log2 of the chunk size: 1 GiB. */
  static final int CHUNK_SHIFT = 30;

  private final ByteBuffer[] chunks;
  private final long wordCount;
  private final int wordShift;
  private final long wordInChunkMask;

  private MappedBitArray(ByteBuffer[] chunks, long wordCount, int chunkShift) {
    this.chunks = chunks;
    this.wordCount = wordCount;
    this.wordShift = chunkShift - 3;
    this.wordInChunkMask = (1L << wordShift) - 1;
  }

  /** Maps {@code wordCount} words starting at {@code offset} and feeds their bytes to crc. */
  static MappedBitArray map(FileChannel channel, long offset, long wordCount, CRC32C crc)
      throws IOException {
    return map(channel, offset, wordCount, crc, CHUNK_SHIFT);
  }

  /** As {@link #map(FileChannel, long, long, CRC32C)} with chunks of 2^chunkShift bytes (≥ 64). */
  static MappedBitArray map(
      FileChannel channel, long offset, long wordCount, CRC32C crc, int chunkShift)
      throws IOException {
    FileChannel.MapMode mode =
        isWritable(channel) ? FileChannel.MapMode.PRIVATE : FileChannel.MapMode.READ_ONLY;
    long bytes = wordCount * Long.BYTES;
    int chunkCount = (int) ((bytes + (1L << chunkShift) - 1) >>> chunkShift);
    ByteBuffer[] chunks = new ByteBuffer[chunkCount];
    for (int i = 0; i < chunkCount; i++) {
      long start = (long) i << chunkShift;
      long size = Math.min(1L << chunkShift, bytes - start);
      MappedByteBuffer map = channel.map(mode, offset + start, size);
      map.order(ByteOrder.LITTLE_ENDIAN);
      chunks[i] = map;
    }
    checksum(channel, offset, bytes, crc);
    return new MappedBitArray(chunks, wordCount, chunkShift);
  }

  /**
   * Checksums through read() rather than through the map: reading the page cache in large chunks
   * costs no page faults, and the map's pages then fault in only when the filter touches them.
   * (Checksumming through the map faulted every 4 KiB page and made mapping slower than reading.)
   */
  private static void checksum(FileChannel channel, long offset, long bytes, CRC32C crc)
      throws IOException {
    ByteBuffer buf = ByteBuffer.allocateDirect(1 << 20);
    for (long done = 0; done < bytes; ) {
      buf.clear().limit((int) Math.min(buf.capacity(), bytes - done));
      while (buf.hasRemaining()) {
        if (channel.read(buf, offset + done + buf.position()) < 0) {
          throw new java.io.EOFException("file ends inside the payload");
        }
      }
      buf.flip();
      crc.update(buf);
      done += buf.limit();
    }
  }

  private static boolean isWritable(FileChannel channel) {
    try {
      channel.map(FileChannel.MapMode.PRIVATE, 0, 0);
      return true;
    } catch (java.nio.channels.NonWritableChannelException | IOException e) {
      return false;
    }
  }

  @Override
  long wordCount() {
    return wordCount;
  }

  @Override
  long word(long index) {
    return (long) LONGS.get(chunks[(int) (index >>> wordShift)], byteOffset(index));
  }

  @Override
  long orWord(long index, long mask) {
    return (long)
        LONGS.getAndBitwiseOr(chunks[(int) (index >>> wordShift)], byteOffset(index), mask);
  }

  @Override
  void setWord(long index, long value) {
    LONGS.set(chunks[(int) (index >>> wordShift)], byteOffset(index), value);
  }

  private int byteOffset(long index) {
    return (int) ((index & wordInChunkMask) << 3);
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
