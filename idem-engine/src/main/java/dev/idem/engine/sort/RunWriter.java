package dev.idem.engine.sort;

import java.io.FileOutputStream;
import java.io.IOException;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.zip.CRC32C;
import net.jpountz.lz4.LZ4Compressor;
import net.jpountz.lz4.LZ4Factory;

/**
 * Writes a run: entries packed into blocks; in each block the entries' fixed fields are stored as
 * they are and their keys and records are LZ4-compressed, the whole block checksummed.
 *
 * <pre>
 * file   = magic "IDEMRUN1" (8) · version (int) · kind (int) · block* · end
 * block  = head length (int &gt; 0) · data length (int) · stored data length (int) · CRC32C of
 *          head and stored data (int) · head · stored data (LZ4 when shorter than the data,
 *          else the data as is)
 * head   = per entry: [hi (long) · lo (long)] · ordinal (varlong) · [key length (varint)] ·
 *          record length (varint)
 * data   = per entry: [key] · record
 * end    = -1 (int) · entries (long) · CRC32C of the entries field (int)
 * </pre>
 *
 * <p>hi and lo are present in runs by key, the key in runs by exact key. In runs by position the
 * ordinal is the difference from the block's previous entry (small), elsewhere the ordinal itself.
 * Fingerprints are random and do not compress, so they stay out of LZ4's way; records, side by
 * side, compress better. Fixed-width integers are big-endian. An entry never spans blocks; a block
 * grows for one entry larger than the block size and shrinks back after it. The end record lets a
 * reader tell a complete run from a cut one.
 *
 * <p>Compressing and writing a block can run on a background thread while the caller fills the next
 * one (two blocks: one filling, one in flight), so that compression overlaps sorting and merging.
 */
final class RunWriter implements EntrySink, AutoCloseable {

  static final byte[] MAGIC = "IDEMRUN1".getBytes(StandardCharsets.US_ASCII);
  static final int VERSION = 1;
  static final int FRAME_HEADER = 16;

  /** Most bytes of an entry's head: two longs, a varlong, two varints. */
  static final int MAX_HEAD = 16 + 10 + 5 + 5;

  // the bounds-checked Java codec: runs are our own files, but a damaged one must fail cleanly
  // (lz4-java's Unsafe and JNI codecs do not check bounds; see docs/SORT_DEDUP.md)
  static final LZ4Factory LZ4 = LZ4Factory.safeInstance();
  private static final LZ4Compressor COMPRESSOR = LZ4.fastCompressor();
  private static final VarHandle LONG =
      MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.BIG_ENDIAN);
  private static final VarHandle INT =
      MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.BIG_ENDIAN);

  /** A block's buffers: head and data as filled, and the frame they are compressed into. */
  private static final class Block {
    final byte[] head;
    byte[] data;
    byte[] frame;
    int headSize;
    int dataSize;

    Block(int headBytes, int dataBytes) {
      head = new byte[headBytes];
      size(dataBytes);
    }

    void size(int dataBytes) {
      data = new byte[dataBytes];
      frame = new byte[FRAME_HEADER + head.length + COMPRESSOR.maxCompressedLength(dataBytes)];
    }
  }

  private final Path path;
  private final RunKind kind;
  private final int blockBytes;
  private final ExecutorService background;
  private final boolean compress;
  private final FileOutputStream out;
  private Block filling;
  private Block spare;
  private Block sent;
  private Future<?> inFlight;
  private long previousOrdinal;
  private long entries;
  private long bytes;

  /** Head bytes per block for data blocks of {@code blockBytes}. */
  static int headBytes(int blockBytes) {
    return Math.max(MAX_HEAD, blockBytes / 2);
  }

  /** Heap a writer holds for blocks of {@code blockBytes}: two blocks with their frames. */
  static long memoryBytes(int blockBytes) {
    return 2
        * (2L * headBytes(blockBytes)
            + blockBytes
            + FRAME_HEADER
            + COMPRESSOR.maxCompressedLength(blockBytes)
            + 64);
  }

  /**
   * Creates {@code path} (which must not exist) and writes the header.
   *
   * @param background where blocks are compressed and written, or {@code null} for the caller's
   *     thread
   */
  RunWriter(Path path, RunKind kind, int blockBytes, ExecutorService background)
      throws IOException {
    this(path, kind, blockBytes, background, true);
  }

  /**
   * @param compress LZ4-compress each block's data (stored as it is when that does not shrink it);
   *     without, every block is stored as it is, which readers tell by its stored length
   */
  RunWriter(Path path, RunKind kind, int blockBytes, ExecutorService background, boolean compress)
      throws IOException {
    this.path = path;
    this.compress = compress;
    this.kind = kind;
    this.blockBytes = blockBytes;
    this.background = background;
    this.filling = new Block(headBytes(blockBytes), blockBytes);
    this.out = new FileOutputStream(path.toFile());
    byte[] header = new byte[16];
    System.arraycopy(MAGIC, 0, header, 0, 8);
    INT.set(header, 8, VERSION);
    INT.set(header, 12, kind.code);
    write(header, header.length);
  }

  @Override
  public void write(
      long hi,
      long lo,
      long ordinal,
      byte[] key,
      int keyOffset,
      int keyLength,
      byte[] record,
      int recordOffset,
      int recordLength)
      throws IOException {
    int k = kind.hasKey() ? keyLength : 0;
    int dataBytes = k + recordLength;
    Block b = filling;
    if (b.head.length - b.headSize < MAX_HEAD || b.data.length - b.dataSize < dataBytes) {
      if (b.headSize > 0) {
        flushBlock();
        b = filling;
      }
      if (dataBytes > b.data.length) {
        b.size(dataBytes); // one entry larger than a block: a block of its own
      }
    }
    byte[] head = b.head;
    int p = b.headSize;
    if (kind.hasFingerprint()) {
      LONG.set(head, p, hi);
      LONG.set(head, p + 8, lo);
      p += 16;
      p = putVarint(head, p, ordinal);
    } else {
      p = putVarint(head, p, ordinal - previousOrdinal); // ascending: a small difference
      previousOrdinal = ordinal;
    }
    if (kind.hasKey()) {
      p = putVarint(head, p, k);
      System.arraycopy(key, keyOffset, b.data, b.dataSize, k);
      b.dataSize += k;
    }
    b.headSize = putVarint(head, p, recordLength);
    System.arraycopy(record, recordOffset, b.data, b.dataSize, recordLength);
    b.dataSize += recordLength;
    entries++;
  }

  private static int putVarint(byte[] b, int p, long v) {
    while ((v & ~0x7FL) != 0) {
      b[p++] = (byte) ((v & 0x7F) | 0x80);
      v >>>= 7;
    }
    b[p++] = (byte) v;
    return p;
  }

  /** Hands the filled block over to be written and takes the other one to fill. */
  private void flushBlock() throws IOException {
    Block full = filling;
    awaitInFlight();
    previousOrdinal = 0;
    if (background == null) {
      compressAndWrite(full);
      filling = full;
      return;
    }
    sent = full;
    inFlight =
        background.submit(
            () -> {
              compressAndWrite(full);
              return null;
            });
    filling = spare != null ? spare : new Block(headBytes(blockBytes), blockBytes);
    spare = null;
  }

  /** Waits for the block in flight, if any; it becomes the spare. */
  private void awaitInFlight() throws IOException {
    if (inFlight == null) {
      return;
    }
    try {
      inFlight.get();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted while writing " + path);
    } catch (ExecutionException e) {
      throw e.getCause() instanceof IOException io
          ? io
          : new IOException(e.getCause().getMessage(), e.getCause());
    } finally {
      inFlight = null;
    }
    spare = sent;
    sent = null;
  }

  private void compressAndWrite(Block b) throws IOException {
    byte[] frame = b.frame;
    int at = FRAME_HEADER + b.headSize;
    System.arraycopy(b.head, 0, frame, FRAME_HEADER, b.headSize);
    int stored =
        b.dataSize == 0 || !compress
            ? b.dataSize
            : COMPRESSOR.compress(b.data, 0, b.dataSize, frame, at, frame.length - at);
    if (stored >= b.dataSize) { // incompressible: store it as it is
      System.arraycopy(b.data, 0, frame, at, b.dataSize);
      stored = b.dataSize;
    }
    CRC32C crc = new CRC32C();
    crc.update(frame, FRAME_HEADER, b.headSize + stored);
    INT.set(frame, 0, b.headSize);
    INT.set(frame, 4, b.dataSize);
    INT.set(frame, 8, stored);
    INT.set(frame, 12, (int) crc.getValue());
    write(frame, at + stored);
    b.headSize = 0;
    b.dataSize = 0;
    if (b.data.length > blockBytes) {
      b.size(blockBytes); // back down after one large entry
    }
  }

  private void write(byte[] b, int len) throws IOException {
    try {
      out.write(b, 0, len);
    } catch (IOException e) {
      throw new IOException(
          "cannot write the sorted run " + path + " (--tmp): " + e.getMessage(), e);
    }
    bytes += len;
  }

  /** Writes the last block and the end record, closes the file, and describes the run. */
  RunFile finish() throws IOException {
    if (filling.headSize > 0) {
      flushBlock();
    }
    awaitInFlight();
    byte[] end = new byte[16];
    INT.set(end, 0, -1);
    LONG.set(end, 4, entries);
    CRC32C crc = new CRC32C();
    crc.update(end, 4, 8);
    INT.set(end, 12, (int) crc.getValue());
    write(end, end.length);
    close();
    return new RunFile(path, kind, entries, bytes);
  }

  /** Closes the file, after the block in flight (whose failure, if any, was or is reported). */
  @Override
  public void close() throws IOException {
    try {
      awaitInFlight();
    } catch (IOException e) {
      // the caller is already failing, or learns of it from finish()
    } finally {
      out.close();
    }
  }
}
