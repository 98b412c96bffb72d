package dev.idem.core;

import java.util.Locale;

/**
 * The 128-bit hash of a key: the only thing filters, tiers and stores look at.
 *
 * <p>A key is hashed once, into a fingerprint; every structure derives its positions from the two
 * halves (Kirsch–Mitzenmacher double hashing), so no key is ever hashed twice. Two different keys
 * share a fingerprint with probability about 2<sup>-128</sup> per pair, so among {@code n} keys a
 * collision happens with probability about {@code n² / 2^129} (≈ 1.5e-21 for a billion keys).
 *
 * @param hi the first 64 bits (XXH3-128's high half); filters use it to pick a block or start
 * @param lo the second 64 bits; filters use it for the step or the positions inside a block
 */
public record Fingerprint(long hi, long lo) {

  /** Number of bytes in {@link #toBytes()}. */
  public static final int BYTES = 16;

  /** Big-endian bytes: {@code hi} then {@code lo}. Sorting the bytes sorts by unsigned value. */
  public byte[] toBytes() {
    byte[] out = new byte[BYTES];
    writeTo(out, 0);
    return out;
  }

  /** Writes the 16 big-endian bytes of this fingerprint into {@code dst} at {@code offset}. */
  public void writeTo(byte[] dst, int offset) {
    write(hi, lo, dst, offset);
  }

  /** Writes the 16 big-endian bytes of fingerprint {@code (hi, lo)} into {@code dst}. */
  public static void write(long hi, long lo, byte[] dst, int offset) {
    for (int i = 0; i < 8; i++) {
      dst[offset + i] = (byte) (hi >>> (56 - 8 * i));
      dst[offset + 8 + i] = (byte) (lo >>> (56 - 8 * i));
    }
  }

  /** Reads a fingerprint written by {@link #writeTo(byte[], int)}. */
  public static Fingerprint fromBytes(byte[] src, int offset) {
    if (src.length - offset < BYTES) {
      throw new IllegalArgumentException(
          "a fingerprint needs " + BYTES + " bytes, only " + (src.length - offset) + " remain");
    }
    long hi = 0;
    long lo = 0;
    for (int i = 0; i < 8; i++) {
      hi = (hi << 8) | (src[offset + i] & 0xFF);
      lo = (lo << 8) | (src[offset + 8 + i] & 0xFF);
    }
    return new Fingerprint(hi, lo);
  }

  /** 32 lower-case hex digits, {@code hi} first. */
  @Override
  public String toString() {
    return String.format(Locale.ROOT, "%016x%016x", hi, lo);
  }
}
