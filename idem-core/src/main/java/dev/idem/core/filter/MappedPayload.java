package dev.idem.core.filter;

import java.io.EOFException;
import java.io.IOException;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.util.zip.CRC32C;

/**
 * The memory map of a snapshot's whole payload, in chunks of at most 1 GiB, that its arrays ({@link
 * MappedBitArray}) are views of.
 *
 * <p>With page checksums (a snapshot written by {@link FilterSnapshot#writePaged}), the payload is
 * not read at load: each page of {@link #pageBytes} bytes is verified against its CRC32C the first
 * time anything reads it, and a page that fails throws {@link SnapshotDamagedException} naming the
 * file and the page. A page is verified before its first write too, so a copy-on-write change never
 * meets an unverified page, and a verified page stays verified for the life of the map.
 */
final class MappedPayload {

  private static final VarHandle BITS = MethodHandles.arrayElementVarHandle(long[].class);

  private final Path file;
  private final ByteBuffer[] chunks;
  private final int chunkShift;
  private final long bytes;
  private final int[] pageCrcs; // null: no page checksums (verified whole at load)
  private final int pageShift;
  private final long[] verified;

  private MappedPayload(
      Path file, ByteBuffer[] chunks, int chunkShift, long bytes, int[] pageCrcs, int pageShift) {
    this.file = file;
    this.chunks = chunks;
    this.chunkShift = chunkShift;
    this.bytes = bytes;
    this.pageCrcs = pageCrcs;
    this.pageShift = pageShift;
    this.verified = pageCrcs == null ? null : new long[(pageCrcs.length + 63) >>> 6];
  }

  /**
   * Maps {@code words} words of {@code channel} from {@code offset}.
   *
   * @param pageCrcs the CRC32C of each page of {@code 2^pageShift} bytes, or {@code null} when the
   *     caller verifies the whole payload itself
   */
  static MappedPayload map(
      Path file, FileChannel channel, long offset, long words, int chunkShift, int[] pageCrcs)
      throws IOException {
    return map(file, channel, offset, words, chunkShift, pageCrcs, SnapshotFormat.PAGE_SHIFT);
  }

  static MappedPayload map(
      Path file,
      FileChannel channel,
      long offset,
      long words,
      int chunkShift,
      int[] pageCrcs,
      int pageShift)
      throws IOException {
    FileChannel.MapMode mode =
        isWritable(channel) ? FileChannel.MapMode.PRIVATE : FileChannel.MapMode.READ_ONLY;
    long bytes = words * Long.BYTES;
    int chunkCount = (int) ((bytes + (1L << chunkShift) - 1) >>> chunkShift);
    ByteBuffer[] chunks = new ByteBuffer[chunkCount];
    for (int i = 0; i < chunkCount; i++) {
      long start = (long) i << chunkShift;
      long size = Math.min(1L << chunkShift, bytes - start);
      MappedByteBuffer map = channel.map(mode, offset + start, size);
      map.order(ByteOrder.LITTLE_ENDIAN);
      chunks[i] = map;
    }
    return new MappedPayload(file, chunks, chunkShift, bytes, pageCrcs, pageShift);
  }

  /**
   * Checksums through read() rather than through the map: reading the page cache in large chunks
   * costs no page faults, and the map's pages then fault in only when the filter touches them.
   * (Checksumming through the map faulted every 4 KiB page and made mapping slower than reading.)
   */
  static void checksum(FileChannel channel, long offset, long bytes, CRC32C crc)
      throws IOException {
    ByteBuffer buf = ByteBuffer.allocateDirect(1 << 20);
    for (long done = 0; done < bytes; ) {
      buf.clear().limit((int) Math.min(buf.capacity(), bytes - done));
      while (buf.hasRemaining()) {
        if (channel.read(buf, offset + done + buf.position()) < 0) {
          throw new EOFException("file ends inside the payload");
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

  Path file() {
    return file;
  }

  ByteBuffer[] chunks() {
    return chunks;
  }

  int chunkShift() {
    return chunkShift;
  }

  /** Whether pages are verified lazily ({@link #check}). */
  boolean guarded() {
    return pageCrcs != null;
  }

  /** Pages verified so far (all of them without page checksums). */
  long pagesVerified() {
    if (verified == null) {
      return 0;
    }
    long n = 0;
    for (long w : verified) {
      n += Long.bitCount(w);
    }
    return n;
  }

  /** Pages of the payload. */
  long pages() {
    return pageCrcs == null ? 0 : pageCrcs.length;
  }

  /** Verifies the page that holds payload word {@code word}, unless it was already. */
  void check(long word) {
    int page = (int) ((word << 3) >>> pageShift);
    long bit = 1L << page;
    if (((long) BITS.getAcquire(verified, page >>> 6) & bit) == 0) {
      verify(page);
      BITS.getAndBitwiseOr(verified, page >>> 6, bit);
    }
  }

  /** Verifies every page of words {@code [first, first + count)}. */
  void checkRange(long first, long count) {
    if (count <= 0) {
      return;
    }
    long wordsPerPage = 1L << (pageShift - 3);
    long last = first + count - 1;
    for (long w = first; w <= last; w = (w / wordsPerPage + 1) * wordsPerPage) {
      check(w);
    }
  }

  /** Verifies every page: what a background check or a test does. */
  void checkAll() {
    checkRange(0, bytes / Long.BYTES);
  }

  private void verify(int page) {
    long start = (long) page << pageShift;
    int n = (int) Math.min(1L << pageShift, bytes - start);
    ByteBuffer chunk = chunks[(int) (start >>> chunkShift)];
    int from = (int) (start & ((1L << chunkShift) - 1));
    CRC32C crc = new CRC32C();
    crc.update(chunk.duplicate().clear().position(from).limit(from + n));
    if ((int) crc.getValue() != pageCrcs[page]) {
      throw new SnapshotDamagedException(file, page, start, n);
    }
  }
}
