package dev.idem.engine.records;

/**
 * CRC32C arithmetic that {@link java.util.zip.CRC32C} lacks: the checksum of two byte ranges
 * joined, from theirs. A job that resumes in the middle of an input carries on the checksum of what
 * it read before without reading it again.
 *
 * <p>zlib's {@code crc32_combine}, for the Castagnoli polynomial: appending {@code n} bytes
 * multiplies the first checksum by x<sup>8n</sup> modulo the polynomial, and those powers come from
 * a table of x<sup>2<sup>k</sup></sup>, so joining costs O(log n), a microsecond or so.
 */
final class Crc32c {

  /** The Castagnoli polynomial, bit-reversed as CRC32C computes it. */
  private static final int POLY = 0x82F63B78;

  /** x^(2^k) modulo the polynomial, k = 0..31. */
  private static final int[] X2N = new int[32];

  static {
    int p = 1 << 30; // x^1
    X2N[0] = p;
    for (int k = 1; k < 32; k++) {
      X2N[k] = p = multiply(p, p);
    }
  }

  private Crc32c() {}

  /**
   * The CRC32C of {@code A} followed by {@code B}, given the CRC32C of {@code A}, that of {@code B}
   * and the length of {@code B}.
   */
  static long combine(long crcA, long crcB, long lengthB) {
    if (lengthB < 0) {
      throw new IllegalArgumentException("negative length " + lengthB);
    }
    int shifted = multiply(xPower8n(lengthB), (int) crcA);
    return (shifted ^ (int) crcB) & 0xFFFF_FFFFL;
  }

  /** x^(8n) modulo the polynomial. */
  private static int xPower8n(long n) {
    int p = 1 << 31; // x^0
    for (int k = 3; n != 0; n >>>= 1, k++) {
      if ((n & 1) != 0) {
        p = multiply(X2N[k & 31], p);
      }
    }
    return p;
  }

  /** a times b modulo the polynomial, in the reflected bit order of the checksum. */
  private static int multiply(int a, int b) {
    int m = 1 << 31;
    int p = 0;
    while (true) {
      if ((a & m) != 0) {
        p ^= b;
        if ((a & (m - 1)) == 0) {
          return p;
        }
      }
      m >>>= 1;
      b = (b & 1) != 0 ? (b >>> 1) ^ POLY : b >>> 1;
    }
  }
}
