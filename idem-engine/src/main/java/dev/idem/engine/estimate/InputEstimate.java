package dev.idem.engine.estimate;

import dev.idem.engine.input.InputFile;
import dev.idem.engine.input.Inputs;
import dev.idem.engine.records.RecordFormat;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.util.List;

/**
 * Guesses how many records the inputs hold, when the user did not say how many distinct keys to
 * expect: the mean record size of samples of the inputs against their total size. A plain file is
 * sampled in {@value #CHUNKS} pieces of 64 KiB spread over its length (read whole when that is as
 * much), so that a file whose records change length along the way is not judged by its head; a
 * compressed (gzip, zstd) file by its first megabyte, decompressed, taken as 5:1. Distinct keys are
 * at most the records, so this sizes the job's exact set or filter and chooses where the exact tier
 * lives; a guess below the records makes the exact set grow as it fills (and a scalable filter
 * absorbs it).
 */
public final class InputEstimate {

  private static final int SAMPLE_BYTES = 1 << 20;
  private static final int CHUNK_BYTES = 1 << 16;
  private static final int CHUNKS = 16;
  private static final int FILES_SAMPLED = 32;
  private static final long UNKNOWN = 10_000_000;

  private InputEstimate() {}

  /** Bytes of complete records read and how many there were. */
  private record Sample(long bytes, long records) {
    Sample plus(Sample o) {
      return new Sample(bytes + o.bytes, records + o.records);
    }
  }

  public static long distinctKeysUpperBound(List<InputFile> inputs, RecordFormat format)
      throws IOException {
    Sample sample = new Sample(0, 0);
    int sampled = 0;
    for (InputFile f : inputs) {
      if (f.isStream() || sampled == FILES_SAMPLED) {
        continue;
      }
      sampled++;
      sample = sample.plus(f.compression().isCompressed() ? head(f) : spread(f));
    }
    if (sampled == 0) {
      return UNKNOWN;
    }
    if (sample.bytes() == 0) {
      return 1024;
    }
    double meanRecordBytes = (double) sample.bytes() / Math.max(1, sample.records());
    double total = 0;
    for (InputFile f : inputs) {
      total += f.isStream() ? UNKNOWN * meanRecordBytes : f.compression().estimatedBytes(f.size());
    }
    return Math.max(1024, (long) Math.ceil(total / meanRecordBytes));
  }

  /** The first megabyte, decompressed: a compressed stream cannot be read from the middle. */
  private static Sample head(InputFile f) throws IOException {
    try (InputStream in = Inputs.open(f.path(), InputStream.nullInputStream())) {
      byte[] bytes = in.readNBytes(SAMPLE_BYTES);
      long lines = 0;
      for (byte b : bytes) {
        lines += b == '\n' ? 1 : 0;
      }
      return new Sample(bytes.length, lines);
    }
  }

  /**
   * {@value #CHUNKS} chunks spread evenly from the start to the end of a plain file, each counted
   * from its first line break to its last (the chunk at the start from the file's start), so that
   * only whole records are measured.
   */
  private static Sample spread(InputFile f) throws IOException {
    long size = f.size();
    if (size <= 0) {
      return new Sample(0, 0);
    }
    Sample total = new Sample(0, 0);
    try (FileChannel ch = FileChannel.open(Path.of(f.path()))) {
      if (size <= (long) CHUNKS * CHUNK_BYTES) {
        ByteBuffer all = ByteBuffer.allocate((int) size);
        readFully(ch, all, 0);
        return count(all, true, size);
      }
      ByteBuffer buf = ByteBuffer.allocate(CHUNK_BYTES);
      for (int i = 0; i < CHUNKS; i++) {
        long at = i * ((size - CHUNK_BYTES) / (CHUNKS - 1));
        buf.clear();
        readFully(ch, buf, at);
        total = total.plus(count(buf, at == 0, size - at));
      }
    }
    return total;
  }

  private static void readFully(FileChannel ch, ByteBuffer buf, long at) throws IOException {
    while (buf.hasRemaining() && ch.read(buf, at + buf.position()) >= 0) {
      // a file that shrank since it was listed ends the chunk early
    }
    buf.flip();
  }

  /**
   * The whole records of a chunk: from its start when it starts the file (else from after its first
   * line break) to its last line break, or to its end when that is the file's end.
   */
  private static Sample count(ByteBuffer chunk, boolean fileStart, long bytesToFileEnd) {
    int first = -1;
    int last = -1;
    long breaks = 0;
    for (int i = 0; i < chunk.limit(); i++) {
      if (chunk.get(i) == '\n') {
        breaks++;
        last = i;
        if (first < 0) {
          first = i;
        }
      }
    }
    int from = fileStart ? 0 : first + 1;
    long records = fileStart ? breaks : breaks - 1;
    int to = last + 1;
    if (chunk.limit() == bytesToFileEnd && last < chunk.limit() - 1) {
      to = chunk.limit(); // a last record without a line break
      records++;
    }
    if (records <= 0 || (!fileStart && first < 0)) {
      return new Sample(chunk.limit(), 0); // no whole record: records are longer than the chunk
    }
    return new Sample(to - from, records);
  }
}
