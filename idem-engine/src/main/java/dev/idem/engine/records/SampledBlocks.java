package dev.idem.engine.records;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;
import java.util.Locale;
import java.util.zip.CRC32C;

/**
 * The CRC32C of a few blocks of a file as stored, spread evenly over a prefix of it: the blocks of
 * {@value #BLOCK} bytes at 0, s, 2s, ... that fit in the prefix, where the stride s (4 KiB times a
 * power of two) doubles, dropping every other block, whenever more than {@value #MAX_BLOCKS} would
 * fit. So 16 to 32 blocks sample the prefix however long it grows, and the first 128 KiB are
 * covered whole.
 *
 * <p>A job takes them at its checkpoints, as the part of an input it has read grows: only the
 * blocks past the last are read then, a moment after the job read them, from the page cache; a
 * resume reads them all again and compares ({@link InputCheck}). A cheap check, and a partial one:
 * it sees an edit only inside a sampled block, so most edits in a small file and few in a large
 * one. The running CRC32C of what was read ({@link InputRead#crc()}) sees every edit, at the cost
 * of reading everything again.
 */
final class SampledBlocks {

  static final int BLOCK = 4096;
  static final int MAX_BLOCKS = 32;

  private long stride;
  private long[] crcs;
  private int count;

  SampledBlocks() {
    this(BLOCK, new long[0]);
  }

  private SampledBlocks(long stride, long[] crcs) {
    this.stride = stride;
    this.crcs = crcs.clone();
    this.count = crcs.length;
  }

  /** The blocks kept in {@code read}, to go on from; none for a state without them. */
  static SampledBlocks of(InputRead read) {
    return read == null || read.blocks() == null || read.stride() < BLOCK
        ? new SampledBlocks()
        : new SampledBlocks(read.stride(), read.blocks());
  }

  long stride() {
    return stride;
  }

  long[] blocks() {
    return Arrays.copyOf(crcs, count);
  }

  /**
   * Samples the first {@code limit} bytes of {@code file}, reading the blocks not sampled yet. Best
   * effort: a file that cannot be read now keeps the blocks it has (the running checksum, not
   * these, is the record of what was read).
   */
  void extendTo(Path file, long limit) {
    int wanted = blocksWithin(stride, limit);
    if (wanted <= count) {
      return;
    }
    while (wanted > MAX_BLOCKS) {
      for (int i = 0; 2 * i < count; i++) {
        crcs[i] = crcs[2 * i];
      }
      count = (count + 1) / 2;
      stride *= 2;
      wanted = blocksWithin(stride, limit);
    }
    if (wanted <= count) {
      return;
    }
    crcs = Arrays.copyOf(crcs, wanted);
    try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
      ByteBuffer buf = ByteBuffer.allocate(BLOCK);
      for (int k = count; k < wanted; k++) {
        long crc = crcAt(ch, k * stride, buf);
        if (crc < 0) {
          break;
        }
        crcs[k] = crc;
        count = k + 1;
      }
    } catch (IOException e) {
      // keep the blocks sampled so far
    }
  }

  /**
   * The first of the blocks ({@code stride}, {@code blocks}, as {@link #blocks()} gave them) whose
   * bytes in {@code file} differ now, as {@code "bytes 65,536-69,631"}; {@code null} if none does.
   */
  static String firstDifference(Path file, long stride, long[] blocks) throws IOException {
    if (blocks == null || blocks.length == 0) {
      return null;
    }
    try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
      ByteBuffer buf = ByteBuffer.allocate(BLOCK);
      for (int k = 0; k < blocks.length; k++) {
        if (crcAt(ch, k * stride, buf) != blocks[k]) {
          return String.format(Locale.ROOT, "bytes %,d-%,d", k * stride, k * stride + BLOCK - 1);
        }
      }
    }
    return null;
  }

  private static int blocksWithin(long stride, long limit) {
    return limit < BLOCK ? 0 : (int) Math.min(Integer.MAX_VALUE, (limit - BLOCK) / stride + 1);
  }

  /** The CRC32C of the block at {@code position}, or -1 when the file ends before it does. */
  private static long crcAt(FileChannel ch, long position, ByteBuffer buf) throws IOException {
    buf.clear();
    while (buf.hasRemaining()) {
      if (ch.read(buf, position + buf.position()) < 0) {
        return -1;
      }
    }
    CRC32C crc = new CRC32C();
    crc.update(buf.flip());
    return crc.getValue();
  }
}
