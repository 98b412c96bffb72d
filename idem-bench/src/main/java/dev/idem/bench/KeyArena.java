package dev.idem.bench;

import dev.idem.core.Fingerprinter;
import java.nio.charset.StandardCharsets;
import java.util.function.Consumer;

/**
 * Benchmark keys packed as bytes in a few large arrays plus per-chunk offsets, so that every
 * contender reads exactly the same bytes and no benchmark pays for (or is flattered by) millions of
 * {@code String} objects and their headers.
 *
 * <p>Key {@code i} is {@code https://www.example-<i%997>.com/path/<i>/item?id=<i*31>}: URL-like,
 * regular and sequential, which is what dedup jobs see and what exposes weak hashing. A key index
 * identifies a key everywhere, so "fresh" keys (never inserted into a filter of {@code n} keys) are
 * simply indices {@code >= n}.
 *
 * <p>Keys are stored in chunks of 2<sup>24</sup> keys (about 1 GiB of bytes each, under the 2 GiB
 * array limit); a chunk size that is a multiple of every batch size keeps a batch inside one chunk.
 */
public final class KeyArena {

  static final int CHUNK_SHIFT = 24;
  static final int CHUNK_KEYS = 1 << CHUNK_SHIFT;
  static final int CHUNK_MASK = CHUNK_KEYS - 1;

  /** Keys per arena when keys are generated on the fly: small enough to be cheap garbage. */
  static final int STREAM_BLOCK = 1 << 20;

  private static final byte[] PREFIX = ascii("https://www.example-");
  private static final byte[] HOST_END = ascii(".com/path/");
  private static final byte[] QUERY = ascii("/item?id=");
  private static final int FIXED_BYTES = PREFIX.length + HOST_END.length + QUERY.length;

  private final byte[][] data;

  /** {@code offsets[c][j]} is where key {@code c·CHUNK_KEYS + j} starts; one extra end entry. */
  private final int[][] offsets;

  private final int size;

  private KeyArena(byte[][] data, int[][] offsets, int size) {
    this.data = data;
    this.offsets = offsets;
    this.size = size;
  }

  /** The keys {@code first, first + stride, …}, {@code count} of them. */
  public static KeyArena build(long first, long stride, int count) {
    int chunks = (count + CHUNK_KEYS - 1) >>> CHUNK_SHIFT;
    byte[][] data = new byte[chunks][];
    int[][] offsets = new int[chunks][];
    for (int c = 0; c < chunks; c++) {
      int keys = Math.min(CHUNK_KEYS, count - (c << CHUNK_SHIFT));
      long firstIndex = first + (long) (c << CHUNK_SHIFT) * stride;
      // Two passes (lengths, then bytes) so each chunk is allocated once at its exact size.
      int[] offs = new int[keys + 1];
      long bytes = 0;
      for (int j = 0; j < keys; j++) {
        offs[j] = (int) bytes;
        bytes += keyLength(firstIndex + j * stride);
      }
      offs[keys] = (int) bytes;
      byte[] chunk = new byte[Math.toIntExact(bytes)];
      for (int j = 0; j < keys; j++) {
        writeKey(firstIndex + j * stride, chunk, offs[j]);
      }
      data[c] = chunk;
      offsets[c] = offs;
    }
    return new KeyArena(data, offsets, count);
  }

  /** Number of keys. */
  public int size() {
    return size;
  }

  /** The byte array holding key {@code i}. */
  public byte[] data(int i) {
    return data[i >>> CHUNK_SHIFT];
  }

  /**
   * The offsets array of key {@code i}'s chunk; key {@code i} is at index {@code i & CHUNK_MASK}.
   */
  public int[] offsets(int i) {
    return offsets[i >>> CHUNK_SHIFT];
  }

  /** Bytes of key data held (offsets not included). */
  public long dataBytes() {
    long total = 0;
    for (byte[] chunk : data) {
      total += chunk.length;
    }
    return total;
  }

  /** The fingerprints of all keys, hi at {@code [2i]} and lo at {@code [2i + 1]}. */
  public long[] fingerprints(Fingerprinter fingerprinter) {
    long[] out = new long[2 * size];
    fingerprintsInto(fingerprinter, out, 0);
    return out;
  }

  /** Writes the fingerprints of all keys into {@code dst}, starting at slot {@code firstSlot}. */
  public void fingerprintsInto(Fingerprinter fingerprinter, long[] dst, int firstSlot) {
    for (int c = 0; c < data.length; c++) {
      byte[] chunk = data[c];
      int[] offs = offsets[c];
      int base = firstSlot + (c << CHUNK_SHIFT);
      for (int j = 0, keys = offs.length - 1; j < keys; j++) {
        fingerprinter.fingerprintInto(chunk, offs[j], offs[j + 1] - offs[j], dst, base + j);
      }
    }
  }

  /**
   * The fingerprints of keys {@code first … first + count - 1}, built block by block so the keys'
   * bytes never all sit in the heap at once (only the {@code long[2·count]} result does).
   */
  public static long[] fingerprintRange(Fingerprinter fingerprinter, long first, int count) {
    long[] out = new long[2 * count];
    for (int done = 0; done < count; done += STREAM_BLOCK) {
      int block = Math.min(STREAM_BLOCK, count - done);
      build(first + done, 1, block).fingerprintsInto(fingerprinter, out, done);
    }
    return out;
  }

  /** Calls {@code action} with consecutive arenas that together hold keys {@code first …}. */
  public static void forEachBlock(long first, int count, Consumer<KeyArena> action) {
    for (int done = 0; done < count; done += STREAM_BLOCK) {
      action.accept(build(first + done, 1, Math.min(STREAM_BLOCK, count - done)));
    }
  }

  /** Key {@code i} as text (for messages and checks only). */
  public static String key(long i) {
    byte[] b = new byte[keyLength(i)];
    writeKey(i, b, 0);
    return new String(b, StandardCharsets.US_ASCII);
  }

  /** Upper bound of heap bytes for an arena of {@code count} keys whose indices stay below max. */
  public static long estimateBytes(long count, long maxIndex) {
    return count * (keyLength(maxIndex) + Integer.BYTES) + (1 << 20);
  }

  static int keyLength(long i) {
    return FIXED_BYTES + digits(i % 997) + digits(i) + digits(i * 31);
  }

  static void writeKey(long i, byte[] dst, int pos) {
    System.arraycopy(PREFIX, 0, dst, pos, PREFIX.length);
    pos = writeDigits(i % 997, dst, pos + PREFIX.length);
    System.arraycopy(HOST_END, 0, dst, pos, HOST_END.length);
    pos = writeDigits(i, dst, pos + HOST_END.length);
    System.arraycopy(QUERY, 0, dst, pos, QUERY.length);
    writeDigits(i * 31, dst, pos + QUERY.length);
  }

  private static int writeDigits(long v, byte[] dst, int pos) {
    int end = pos + digits(v);
    for (int p = end - 1; p >= pos; p--) {
      dst[p] = (byte) ('0' + (v % 10));
      v /= 10;
    }
    return end;
  }

  private static int digits(long v) {
    int d = 1;
    while (v >= 10) {
      v /= 10;
      d++;
    }
    return d;
  }

  private static byte[] ascii(String s) {
    return s.getBytes(StandardCharsets.US_ASCII);
  }
}
