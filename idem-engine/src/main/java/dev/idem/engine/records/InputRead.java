package dev.idem.engine.records;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
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
   * What a job reads of {@code input} when it reads all of it, not front to back (a Parquet file,
   * by row group): the CRC32C of its stored bytes and sampled blocks, taken now.
   */
  public static InputRead ofWholeFile(InputFile input) throws IOException {
    Path path = Path.of(input.path());
    CRC32C crc = new CRC32C();
    long bytes = 0;
    try (InputStream in = Files.newInputStream(path)) {
      byte[] buf = new byte[1 << 16];
      for (int n; (n = in.read(buf)) > 0; ) {
        crc.update(buf, 0, n);
        bytes += n;
      }
    }
    SampledBlocks s = new SampledBlocks();
    s.extendTo(path, bytes);
    return new InputRead(
        bytes, crc.getValue(), s.stride(), s.blocks(), input.modified(), input.fileKey());
  }
}
