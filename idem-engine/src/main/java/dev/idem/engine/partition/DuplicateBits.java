package dev.idem.engine.partition;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.zip.CRC32C;

/**
 * One bit per judged record, in input order: set when the record is a later occurrence of its key.
 * The partitioned method's verdicts ({@link PartitionedPlan}), in a file mapped into memory, so
 * that marks made before a {@link #force} survive a kill and a resume reads them back without a
 * copy on the heap. The file is {@code ceil(records / 8)} bytes, bit {@code i % 8} of byte {@code i
 * / 8} for record {@code i}; a new file is all zeros (no duplicates).
 */
public final class DuplicateBits implements AutoCloseable {

  /** One mapping holds at most this many bytes. */
  private static final long MAX_BYTES = Integer.MAX_VALUE;

  private final Path file;
  private final long records;
  private final FileChannel channel;
  private final MappedByteBuffer bits;

  private DuplicateBits(Path file, long records, FileChannel channel, MappedByteBuffer bits) {
    this.file = file;
    this.records = records;
    this.channel = channel;
    this.bits = bits;
  }

  /** The size of the file of {@code records} records' bits. */
  static long bytesFor(long records) {
    return (records + 7) / 8;
  }

  /** Creates (or opens, keeping its marks) the bits of {@code records} records at {@code file}. */
  public static DuplicateBits open(Path file, long records) throws IOException {
    long bytes = bytesFor(records);
    if (bytes > MAX_BYTES) {
      throw new IOException(
          file
              + ": "
              + records
              + " records need more verdict bits than one file mapping "
              + "holds (2 GiB, 17 billion records); split the input into several jobs");
    }
    FileChannel ch =
        FileChannel.open(
            file, StandardOpenOption.CREATE, StandardOpenOption.READ, StandardOpenOption.WRITE);
    try {
      long size = ch.size();
      if (size != 0 && size != bytes) {
        throw new IOException(
            file + ": " + size + " bytes, not the " + bytes + " of " + records + " records");
      }
      MappedByteBuffer map = ch.map(FileChannel.MapMode.READ_WRITE, 0, bytes);
      return new DuplicateBits(file, records, ch, map);
    } catch (IOException | RuntimeException e) {
      ch.close();
      throw e;
    }
  }

  public long records() {
    return records;
  }

  /** Marks record {@code i} a duplicate. */
  void mark(long i) {
    int at = (int) (i >>> 3);
    bits.put(at, (byte) (bits.get(at) | (1 << (i & 7))));
  }

  /** Whether record {@code i} is a duplicate. */
  public boolean isDuplicate(long i) {
    return (bits.get((int) (i >>> 3)) & (1 << (i & 7))) != 0;
  }

  /** How many records are marked. */
  long count() {
    long n = 0;
    ByteBuffer b = bits.duplicate().position(0);
    while (b.remaining() >= Long.BYTES) {
      n += Long.bitCount(b.getLong());
    }
    while (b.hasRemaining()) {
      n += Integer.bitCount(b.get() & 0xff);
    }
    return n;
  }

  /** The CRC32C of the file's bytes: what a plan records, to know its verdicts again. */
  long crc() {
    CRC32C crc = new CRC32C();
    crc.update(bits.duplicate().position(0));
    return crc.getValue();
  }

  /** Makes every mark so far durable. */
  void force() throws IOException {
    try {
      bits.force();
    } catch (RuntimeException e) {
      throw new IOException(file + ": cannot write the verdicts to disk: " + e.getMessage(), e);
    }
  }

  @Override
  public void close() throws IOException {
    channel.close(); // the mapping stays valid until collected, and is read-only in use after
  }
}
