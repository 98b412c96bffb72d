package dev.idem.engine.partition;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * The partition files of the partitioned method's first pass ({@link PartitionedPlan}): entries of
 * {@link #ENTRY_BYTES} bytes (a key's fingerprint hi and lo, then the record's ordinal among the
 * judged records, three little-endian longs), appended in input order, so each file lists its keys'
 * records in the order they came.
 *
 * <p>A key's partition is a function of its fingerprint's low word ({@link #partitionOf}); the high
 * word is left whole for the in-memory set that judges a partition, which places keys by it.
 */
final class PartitionFiles implements AutoCloseable {

  static final int ENTRY_BYTES = 24;

  private final Path[] paths;
  private final FileChannel[] channels;
  private final ByteBuffer[] buffers;
  private final long[] lengths;

  private PartitionFiles(
      Path[] paths, FileChannel[] channels, ByteBuffer[] buffers, long[] lengths) {
    this.paths = paths;
    this.channels = channels;
    this.buffers = buffers;
    this.lengths = lengths;
  }

  /**
   * Write buffers for {@code partitions} files that together take a quarter of {@code setBudget} at
   * most: the files are written while the set that judges them is not yet allocated, and the budget
   * is the job's memory.
   */
  static int bufferBytes(long setBudget, int partitions) {
    int bytes = (int) Math.max(4096, Math.min(64 << 10, setBudget / 4 / partitions));
    return bytes - bytes % ENTRY_BYTES;
  }

  /** File {@code index} of partition level {@code level} under {@code dir}. */
  static Path path(Path dir, int level, int index) {
    return dir.resolve(String.format(java.util.Locale.ROOT, "part-%d-%05d.fp", level, index));
  }

  /**
   * The partition, of {@code partitions}, of a key whose fingerprint's low word is {@code lo}, at
   * split level {@code level}: each level reads other bits, so splitting a partition again spreads
   * its keys.
   */
  static int partitionOf(long lo, int partitions, int level) {
    long bits = Long.rotateLeft(lo, 21 * level) >>> 32;
    return (int) ((bits * partitions) >>> 32);
  }

  /**
   * Opens the {@code lengths.length} files of {@code level} for appending, each cut back to its
   * length in {@code lengths} (what the last checkpoint made durable; 0 for a new file).
   */
  static PartitionFiles open(Path dir, int level, long[] lengths, int bufferBytes)
      throws IOException {
    int n = lengths.length;
    Path[] paths = new Path[n];
    FileChannel[] channels = new FileChannel[n];
    ByteBuffer[] buffers = new ByteBuffer[n];
    try {
      for (int i = 0; i < n; i++) {
        paths[i] = path(dir, level, i);
        channels[i] =
            FileChannel.open(paths[i], StandardOpenOption.CREATE, StandardOpenOption.WRITE);
        if (channels[i].size() < lengths[i]) {
          throw new IOException(
              paths[i]
                  + " is "
                  + channels[i].size()
                  + " bytes, shorter than the "
                  + lengths[i]
                  + " its last checkpoint made durable: the state was damaged; start over with a "
                  + "new --state");
        }
        channels[i].truncate(lengths[i]);
        channels[i].position(lengths[i]);
        buffers[i] = ByteBuffer.allocate(bufferBytes).order(ByteOrder.LITTLE_ENDIAN);
      }
    } catch (IOException | RuntimeException e) {
      for (FileChannel c : channels) {
        if (c != null) {
          c.close();
        }
      }
      throw e;
    }
    return new PartitionFiles(paths, channels, buffers, lengths.clone());
  }

  /** Appends an entry to partition {@code p}. */
  void add(int p, long hi, long lo, long ordinal) throws IOException {
    ByteBuffer b = buffers[p];
    if (b.remaining() < ENTRY_BYTES) {
      drain(p);
    }
    b.putLong(hi).putLong(lo).putLong(ordinal);
  }

  private void drain(int p) throws IOException {
    ByteBuffer b = buffers[p];
    b.flip();
    try {
      while (b.hasRemaining()) {
        lengths[p] += channels[p].write(b);
      }
    } catch (IOException e) {
      throw new IOException(paths[p] + ": cannot write: " + e.getMessage(), e);
    }
    b.clear();
  }

  /** Writes every buffered entry to the files. */
  void flush() throws IOException {
    for (int p = 0; p < channels.length; p++) {
      drain(p);
    }
  }

  /** Writes every buffered entry and makes the files durable; then {@link #lengths} are. */
  void force() throws IOException {
    flush();
    for (int p = 0; p < channels.length; p++) {
      try {
        channels[p].force(false);
      } catch (IOException e) {
        throw new IOException(paths[p] + ": cannot sync: " + e.getMessage(), e);
      }
    }
  }

  /** The files' lengths: what {@link #flush} wrote, not what is still buffered. */
  long[] lengths() {
    return lengths.clone();
  }

  @Override
  public void close() throws IOException {
    IOException first = null;
    for (FileChannel c : channels) {
      try {
        c.close();
      } catch (IOException e) {
        first = first == null ? e : first;
      }
    }
    if (first != null) {
      throw first;
    }
  }

  /** Deletes the files of {@code level} under {@code dir} from index 0 up to the first missing. */
  static void delete(Path dir, int level) throws IOException {
    for (int i = 0; Files.deleteIfExists(path(dir, level, i)); i++) {
      // deleted
    }
  }
}
