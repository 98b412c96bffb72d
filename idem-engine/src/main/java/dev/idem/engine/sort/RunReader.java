package dev.idem.engine.sort;

import java.io.FileInputStream;
import java.io.IOException;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.util.Arrays;
import java.util.zip.CRC32C;
import net.jpountz.lz4.LZ4Exception;
import net.jpountz.lz4.LZ4SafeDecompressor;

/**
 * Reads a run written by {@link RunWriter}, one entry at a time. After {@link #next()} the entry is
 * in the package-visible fields, its key and record inside {@link #block}, valid until the next
 * call. A damaged or cut run is refused with a message naming the file.
 */
final class RunReader implements AutoCloseable {

  private static final LZ4SafeDecompressor DECOMPRESSOR = RunWriter.LZ4.safeDecompressor();
  private static final VarHandle LONG =
      MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.BIG_ENDIAN);
  private static final VarHandle INT =
      MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.BIG_ENDIAN);

  final RunFile run;
  long hi;
  long lo;
  long ordinal;

  /** The block's keys and records. */
  byte[] block;

  int keyOffset;
  int keyLength;
  int recordOffset;
  int recordLength;

  private final int blockBytes;
  private final boolean fingerprint;
  private final boolean key;
  private final FileInputStream in;
  private final CRC32C crc = new CRC32C();
  private final byte[] frameHeader = new byte[RunWriter.FRAME_HEADER];
  private byte[] head;
  private byte[] stored;
  private int headPosition;
  private int headLimit;
  private int dataPosition;
  private int dataLimit;
  private long entriesRead;
  private boolean ended;

  /** Heap a reader holds for blocks of {@code blockBytes}: head, data, stored data. */
  static long memoryBytes(int blockBytes) {
    return RunWriter.headBytes(blockBytes) + 2L * blockBytes + blockBytes / 255 + 256;
  }

  RunReader(RunFile run, int blockBytes) throws IOException {
    this.run = run;
    this.blockBytes = blockBytes;
    this.fingerprint = run.kind().hasFingerprint();
    this.key = run.kind().hasKey();
    this.in = new FileInputStream(run.path().toFile());
    try {
      byte[] h = new byte[16];
      readFully(h, 0, 16);
      if (!Arrays.equals(h, 0, 8, RunWriter.MAGIC, 0, 8)
          || (int) INT.get(h, 8) != RunWriter.VERSION
          || (int) INT.get(h, 12) != run.kind().code) {
        throw damaged("not a run of this version and kind");
      }
    } catch (IOException e) {
      in.close();
      throw e;
    }
    this.head = new byte[RunWriter.headBytes(blockBytes)];
    this.block = new byte[blockBytes];
    this.stored = new byte[blockBytes + blockBytes / 255 + 16];
  }

  /** Moves to the next entry; false after the last. */
  boolean next() throws IOException {
    if (headPosition == headLimit) {
      if (dataPosition != dataLimit) {
        throw damaged("a block's data does not match its entries");
      }
      if (!nextBlock()) {
        return false;
      }
      ordinal = 0;
    }
    if (fingerprint) {
      if (headLimit - headPosition < 16) {
        throw damaged("an entry runs past its block");
      }
      hi = (long) LONG.get(head, headPosition);
      lo = (long) LONG.get(head, headPosition + 8);
      headPosition += 16;
      ordinal = varint();
    } else {
      ordinal += varint(); // positions ascend: stored as differences
    }
    keyLength = key ? (int) varint() : 0;
    recordLength = (int) varint();
    keyOffset = dataPosition;
    recordOffset = dataPosition + keyLength;
    dataPosition = recordOffset + recordLength;
    if (keyLength < 0 || recordLength < 0 || dataPosition < 0 || dataPosition > dataLimit) {
      throw damaged("an entry runs past its block");
    }
    entriesRead++;
    return true;
  }

  private long varint() throws IOException {
    long v = 0;
    for (int shift = 0; shift < 64 && headPosition < headLimit; shift += 7) {
      byte b = head[headPosition++];
      v |= (long) (b & 0x7F) << shift;
      if (b >= 0) {
        return v;
      }
    }
    throw damaged("a number runs past its block");
  }

  private boolean nextBlock() throws IOException {
    if (ended) {
      return false;
    }
    readFully(frameHeader, 0, 4);
    int headLength = (int) INT.get(frameHeader, 0);
    if (headLength == -1) {
      byte[] end = new byte[12];
      readFully(end, 0, 12);
      crc.reset();
      crc.update(end, 0, 8);
      long entries = (long) LONG.get(end, 0);
      if ((int) INT.get(end, 8) != (int) crc.getValue()
          || entries != entriesRead
          || entries != run.entries()) {
        throw damaged("its end record does not match the " + entriesRead + " entries read");
      }
      ended = true;
      return false;
    }
    readFully(frameHeader, 4, 12);
    int dataLength = (int) INT.get(frameHeader, 4);
    int storedLength = (int) INT.get(frameHeader, 8);
    if (headLength <= 0
        || headLength > head.length
        || dataLength < 0
        || storedLength < 0
        || storedLength > dataLength + dataLength / 255 + 16) {
      throw damaged("a block header is invalid");
    }
    if (dataLength > block.length || block.length > blockBytes && dataLength <= blockBytes) {
      block = new byte[Math.max(dataLength, blockBytes)]; // grown for one large entry, or back
      stored = new byte[block.length + block.length / 255 + 16];
    }
    readFully(head, 0, headLength);
    byte[] target = storedLength == dataLength ? block : stored;
    readFully(target, 0, storedLength);
    crc.reset();
    crc.update(head, 0, headLength);
    crc.update(target, 0, storedLength);
    if ((int) INT.get(frameHeader, 12) != (int) crc.getValue()) {
      throw damaged("a block's checksum does not match");
    }
    if (target == stored) {
      int n;
      try {
        n = DECOMPRESSOR.decompress(stored, 0, storedLength, block, 0, dataLength);
      } catch (LZ4Exception | ArrayIndexOutOfBoundsException e) {
        n = -1;
      }
      if (n != dataLength) {
        throw damaged("a block does not decompress");
      }
    }
    headPosition = 0;
    headLimit = headLength;
    dataPosition = 0;
    dataLimit = dataLength;
    return true;
  }

  private void readFully(byte[] b, int off, int len) throws IOException {
    while (len > 0) {
      int n = in.read(b, off, len);
      if (n < 0) {
        throw damaged("it ends early");
      }
      off += n;
      len -= n;
    }
  }

  private IOException damaged(String why) {
    return new IOException(
        "sorted run "
            + run.path()
            + " is damaged: "
            + why
            + "; was the --tmp directory changed during the job?");
  }

  @Override
  public void close() throws IOException {
    in.close();
  }
}
