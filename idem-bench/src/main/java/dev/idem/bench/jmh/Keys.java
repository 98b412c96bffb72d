package dev.idem.bench.jmh;

import dev.idem.core.Fingerprinter;
import java.nio.charset.StandardCharsets;

/**
 * Benchmark keys as bytes in a few large arrays plus offsets, so that every contender reads the
 * same bytes and no benchmark pays for (or is flattered by) millions of objects. Key {@code k} is
 * {@code https://www.example-<k%997>.com/path/<k>/item?id=<k*31>} (about 60 bytes): URL-like and
 * regular, as dedup jobs see them.
 */
final class Keys {
  private static final int CHUNK_BITS = 22;
  private static final int CHUNK = 1 << CHUNK_BITS;
  private static final Fingerprinter FP = Fingerprinter.xxh3();

  private final byte[][] bytes;
  private final int[][] offsets;
  final int count;

  /** Keys {@code first … first + count - 1}. */
  Keys(long first, int count) {
    this.count = count;
    int chunks = (count + CHUNK - 1) / CHUNK;
    bytes = new byte[chunks][];
    offsets = new int[chunks][];
    for (int c = 0; c < chunks; c++) {
      int n = Math.min(CHUNK, count - c * CHUNK);
      StringBuilder b = new StringBuilder(n * 64);
      offsets[c] = new int[n + 1];
      for (int i = 0; i < n; i++) {
        long k = first + (long) c * CHUNK + i;
        offsets[c][i] = b.length();
        b.append("https://www.example-").append(k % 997).append(".com/path/").append(k);
        b.append("/item?id=").append(k * 31);
      }
      offsets[c][n] = b.length();
      bytes[c] = b.toString().getBytes(StandardCharsets.US_ASCII);
    }
  }

  byte[] array(int i) {
    return bytes[i >>> CHUNK_BITS];
  }

  int offset(int i) {
    return offsets[i >>> CHUNK_BITS][i & (CHUNK - 1)];
  }

  int length(int i) {
    int[] o = offsets[i >>> CHUNK_BITS];
    int j = i & (CHUNK - 1);
    return o[j + 1] - o[j];
  }

  /** Key i's XXH3-128 fingerprint into {@code dst[2 slot]}, {@code dst[2 slot + 1]}. */
  void fingerprint(int i, long[] dst, int slot) {
    FP.fingerprintInto(array(i), offset(i), length(i), dst, slot);
  }

  String string(int i) {
    return new String(array(i), offset(i), length(i), StandardCharsets.US_ASCII);
  }
}
