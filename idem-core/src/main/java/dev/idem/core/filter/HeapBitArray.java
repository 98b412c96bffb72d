package dev.idem.core.filter;

import dev.idem.core.ByteSize;
import java.io.EOFException;
import java.io.IOException;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.LongBuffer;
import java.nio.channels.ReadableByteChannel;
import java.nio.channels.WritableByteChannel;
import java.util.zip.CRC32C;

/** Bits in one heap {@code long[]}; the layout for filters built or read into memory. */
final class HeapBitArray extends BitArray {

  private static final VarHandle WORDS = MethodHandles.arrayElementVarHandle(long[].class);
  private static final int IO_CHUNK = 1 << 20;

  /**
   * One direct buffer per thread for snapshot reads and writes. A buffer per array would leave its
   * native megabyte to the garbage collector, which may not run for the whole snapshot: a striped
   * set's 64 arrays held 64 MiB outside the heap until the next collection.
   */
  private static final ThreadLocal<ByteBuffer> IO_BUFFER =
      ThreadLocal.withInitial(
          () -> ByteBuffer.allocateDirect(IO_CHUNK).order(ByteOrder.LITTLE_ENDIAN));

  private final long[] words;

  private HeapBitArray(long[] words) {
    this.words = words;
  }

  /** An array over existing words (no copy). */
  static HeapBitArray wrap(long[] words) {
    return new HeapBitArray(words);
  }

  /** The words themselves, for structures that index them directly on their hot path. */
  long[] words() {
    return words;
  }

  /**
   * A zeroed array of at least {@code bits} bits.
   *
   * @throws NotEnoughMemoryException when the JVM heap cannot hold it, saying how much is needed
   */
  static HeapBitArray allocate(long bits) {
    long wordCount = (bits + 63) >>> 6;
    if (bits <= 0 || bits > FilterMath.MAX_BITS) {
      throw new IllegalArgumentException(
          "a filter must have between 1 and " + FilterMath.MAX_BITS + " bits, got " + bits);
    }
    long bytes = wordCount * Long.BYTES;
    Runtime rt = Runtime.getRuntime();
    if (bytes > rt.maxMemory()) {
      throw notEnoughHeap(bytes);
    }
    try {
      return new HeapBitArray(new long[(int) wordCount]);
    } catch (OutOfMemoryError e) {
      throw notEnoughHeap(bytes);
    }
  }

  private static NotEnoughMemoryException notEnoughHeap(long bytes) {
    return new NotEnoughMemoryException(
        "not enough memory for a filter of "
            + ByteSize.format(bytes)
            + " (JVM heap limit "
            + ByteSize.format(Runtime.getRuntime().maxMemory())
            + "); raise the heap with -Xmx (for bin/idem: IDEM_JAVA_OPTS=-Xmx...) "
            + "or size the filter for fewer keys or a higher false-positive rate");
  }

  /** Reads {@code wordCount} little-endian words from {@code in}, feeding the bytes to crc. */
  static HeapBitArray read(ReadableByteChannel in, long wordCount, CRC32C crc) throws IOException {
    HeapBitArray array = allocate(wordCount * Long.SIZE);
    long[] words = array.words;
    ByteBuffer buf = IO_BUFFER.get();
    int done = 0;
    while (done < words.length) {
      int n = (int) Math.min(IO_CHUNK / Long.BYTES, words.length - done);
      buf.clear().limit(n * Long.BYTES);
      while (buf.hasRemaining()) {
        if (in.read(buf) < 0) {
          throw new EOFException(
              "payload ends after "
                  + ((long) done * Long.BYTES + buf.position())
                  + " of "
                  + wordCount * Long.BYTES
                  + " bytes");
        }
      }
      buf.flip();
      crc.update(buf.duplicate());
      LongBuffer longs = buf.asLongBuffer();
      longs.get(words, done, n);
      done += n;
    }
    return array;
  }

  @Override
  long wordCount() {
    return words.length;
  }

  @Override
  long word(long index) {
    return words[(int) index];
  }

  @Override
  long orWord(long index, long mask) {
    return (long) WORDS.getAndBitwiseOr(words, (int) index, mask);
  }

  @Override
  void setWord(long index, long value) {
    words[(int) index] = value;
  }

  @Override
  void writeTo(WritableByteChannel out, CRC32C crc) throws IOException {
    write(words, 0, words.length, out, crc);
  }

  /**
   * Writes {@code words[from, to)}, little-endian, to {@code out}, feeding the same bytes to {@code
   * crc}: the one encoder of heap words, also for structures whose payload is part of an array.
   */
  static void write(long[] words, int from, int to, WritableByteChannel out, CRC32C crc)
      throws IOException {
    ByteBuffer buf = IO_BUFFER.get();
    for (int done = from; done < to; ) {
      int n = Math.min(IO_CHUNK / Long.BYTES, to - done);
      buf.clear();
      buf.asLongBuffer().put(words, done, n);
      buf.limit(n * Long.BYTES);
      crc.update(buf.duplicate());
      while (buf.hasRemaining()) {
        out.write(buf);
      }
      done += n;
    }
  }
}
