package dev.idem.engine.records;

import dev.idem.engine.input.InputFile;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.zip.CRC32C;

/**
 * What a job read of one input, kept with its checkpoints so that a resume can tell whether the
 * input still holds it ({@link InputCheck}). Stored as JSON: in the dedup checkpoint for the input
 * being read, under {@code "input-<index>"} in the state's meta values for each input read to its
 * end (written once), and in a split's checkpoint file.
 *
 * @param bytes bytes read from its start (decompressed, for gzip or zstd)
 * @param crc the CRC32C of those bytes, or {@code null} when the job began reading the input under
 *     an idem that kept none
 * @param stride the distance between sampled blocks ({@link SampledBlocks})
 * @param blocks the CRC32C of the file's stored bytes in blocks of {@value SampledBlocks#BLOCK}
 *     bytes at 0, stride, 2 stride, ..., all within what was read (all of a compressed file, once
 *     read to its end; none of it before)
 * @param modified the file's modification time when this run of the job began, before it read any
 *     of it: the bytes above were read from the file as it was then, or checked against it
 * @param fileKey the file's key (device and inode) then, or {@code null} where there is none
 */
public record InputRead(
    long bytes, Long crc, long stride, long[] blocks, String modified, String fileKey) {

  /**
   * What a job has read of {@code input} when it has read its first {@code bytes} bytes as stored,
   * in any order (a Parquet file, by row group): their CRC32C and sampled blocks, read now. {@code
   * before}, what it had read of a shorter prefix, is extended rather than read again.
   */
  public static InputRead ofPrefix(InputFile input, InputRead before, long bytes)
      throws IOException {
    Path path = Path.of(input.path());
    boolean extend = before != null && before.crc() != null && before.bytes() <= bytes;
    long from = extend ? before.bytes() : 0;
    CRC32C crc = new CRC32C();
    try (FileChannel ch = FileChannel.open(path, StandardOpenOption.READ)) {
      ByteBuffer buf = ByteBuffer.allocate(1 << 16);
      for (long at = from; at < bytes; ) {
        buf.clear().limit((int) Math.min(buf.capacity(), bytes - at));
        int n = ch.read(buf, at);
        if (n < 0) {
          throw new IOException(input.path() + ": ends before byte " + bytes);
        }
        crc.update(buf.flip());
        at += n;
      }
    }
    long value =
        extend ? Crc32c.combine(before.crc(), crc.getValue(), bytes - from) : crc.getValue();
    SampledBlocks s = extend ? SampledBlocks.of(before) : new SampledBlocks();
    s.extendTo(path, bytes);
    return new InputRead(bytes, value, s.stride(), s.blocks(), input.modified(), input.fileKey());
  }
}
