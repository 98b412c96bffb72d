package dev.idem.core;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;

/**
 * XXH3-128 of keys up to {@link #MAX_LENGTH} bytes, written into two longs instead of returned as
 * an object: the same value as hash4j's {@code Hashing.xxh3_128(seed)} (the test checks every
 * length), without the 32-byte {@code HashValue128} that hash4j allocates per key and that escape
 * analysis does not remove (its hash method is too large to inline). That object was the only
 * allocation on the job's batch path (hash, prefetch, probe). Longer keys, rare for dedup keys, go
 * to hash4j, whose cost per key is then dominated by the bytes hashed.
 *
 * <p>This is the short-input half of the XXH3 specification (xxhash.h, XXH3_128bits_withSeed:
 * lengths 0, 1–3, 4–8, 9–16, 17–128 and 129–240) with its default secret.
 */
final class Xxh3Short {

  /** Longest key hashed here; longer ones take XXH3's striped path, which is left to hash4j. */
  static final int MAX_LENGTH = 240;

  private static final VarHandle LONG =
      MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);
  private static final VarHandle INT =
      MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.LITTLE_ENDIAN);

  private static final long P32_2 = 0x85EBCA77L;
  private static final long P64_1 = 0x9E3779B185EBCA87L;
  private static final long P64_2 = 0xC2B2AE3D27D4EB4FL;
  private static final long P64_3 = 0x165667B19E3779F9L;
  private static final long P64_4 = 0x85EBCA77C2B2AE63L;
  private static final long MX1 = 0x165667919E3779F9L;
  private static final long MX2 = 0x9FB21C651E98DF25L;

  /** XXH3's default 192-byte secret (kSecret), as little-endian words. */
  private static final byte[] SECRET = secret();

  private Xxh3Short() {}

  private static byte[] secret() {
    long[] words = {
      0xBE4BA423396CFEB8L, 0x1CAD21F72C81017CL, 0xDB979083E96DD4DEL, 0x1F67B3B7A4A44072L,
      0x78E5C0CC4EE679CBL, 0x2172FFCC7DD05A82L, 0x8E2443F7744608B8L, 0x4C263A81E69035E0L,
      0xCB00C391BB52283CL, 0xA32E531B8B65D088L, 0x4EF90DA297486471L, 0xD8ACDEA946EF1938L,
      0x3F349CE33F76FAA8L, 0x1D4F0BC7C7BBDCF9L, 0x3159B4CD4BE0518AL, 0x647378D9C97E9FC8L,
      0xC3EBD33483ACC5EAL, 0xEB6313FAFFA081C5L, 0x49DAF0B751DD0D17L, 0x9E68D429265516D3L,
      0xFCA1477D58BE162BL, 0xCE31D07AD1B8F88FL, 0x280416958F3ACB45L, 0x7E404BBBCAFBD7AFL,
    };
    byte[] s = new byte[8 * words.length];
    for (int i = 0; i < words.length; i++) {
      LONG.set(s, 8 * i, words[i]);
    }
    return s;
  }

  /**
   * Hashes {@code in[off, off + len)}, {@code len <= MAX_LENGTH}, with {@code seed}: the high 64
   * bits (hash4j's most significant) into {@code dst[2·slot]}, the low into {@code dst[2·slot +
   * 1]}.
   */
  static void hash(byte[] in, int off, int len, long seed, long[] dst, int slot) {
    long lo;
    long hi;
    if (len > 16) {
      long accLo = len * P64_1;
      long accHi = 0;
      if (len <= 128) {
        // 17–128 bytes: pairs of 16-byte lanes from both ends, outermost last
        int rounds = (len - 1) >>> 5; // 0 for 17–32, 1 for 33–64, 2 for 65–96, 3 for 97–128
        for (int i = rounds; i >= 0; i--) {
          int a = off + 16 * i;
          int b = off + len - 16 * (i + 1);
          int s = 32 * i;
          long m1 = mix16(in, a, s, seed);
          long m2 = mix16(in, b, s + 16, seed);
          accLo = (accLo + m1) ^ (r64(in, b) + r64(in, b + 8));
          accHi = (accHi + m2) ^ (r64(in, a) + r64(in, a + 8));
        }
      } else {
        int rounds = len >>> 5;
        for (int i = 0; i < 4; i++) {
          int a = off + 32 * i;
          long m1 = mix16(in, a, 32 * i, seed);
          long m2 = mix16(in, a + 16, 32 * i + 16, seed);
          accLo = (accLo + m1) ^ (r64(in, a + 16) + r64(in, a + 24));
          accHi = (accHi + m2) ^ (r64(in, a) + r64(in, a + 8));
        }
        accLo = avalanche(accLo);
        accHi = avalanche(accHi);
        for (int i = 4; i < rounds; i++) {
          int a = off + 32 * i;
          int s = 3 + 32 * (i - 4);
          long m1 = mix16(in, a, s, seed);
          long m2 = mix16(in, a + 16, s + 16, seed);
          accLo = (accLo + m1) ^ (r64(in, a + 16) + r64(in, a + 24));
          accHi = (accHi + m2) ^ (r64(in, a) + r64(in, a + 8));
        }
        // the last 32 bytes, lanes swapped, secret at 136 - 17 - 16, seed negated
        int a = off + len - 16;
        int b = off + len - 32;
        long m1 = mix16(in, a, 103, -seed);
        long m2 = mix16(in, b, 119, -seed);
        accLo = (accLo + m1) ^ (r64(in, b) + r64(in, b + 8));
        accHi = (accHi + m2) ^ (r64(in, a) + r64(in, a + 8));
      }
      lo = avalanche(accLo + accHi);
      hi = -avalanche(accLo * P64_1 + accHi * P64_4 + (len - seed) * P64_2);
    } else if (len > 8) {
      long bitflipLo = (r64(SECRET, 32) ^ r64(SECRET, 40)) - seed;
      long bitflipHi = (r64(SECRET, 48) ^ r64(SECRET, 56)) + seed;
      long inLo = r64(in, off);
      long inHi = r64(in, off + len - 8);
      long x = inLo ^ inHi ^ bitflipLo;
      long mLo = x * P64_1;
      long mHi = unsignedMultiplyHigh(x, P64_1);
      mLo += (long) (len - 1) << 54;
      inHi ^= bitflipHi;
      mHi += inHi + (inHi & 0xFFFFFFFFL) * (P32_2 - 1);
      mLo ^= Long.reverseBytes(mHi);
      lo = avalanche(mLo * P64_2);
      hi = avalanche(unsignedMultiplyHigh(mLo, P64_2) + mHi * P64_2);
    } else if (len >= 4) {
      long s = seed ^ ((long) Integer.reverseBytes((int) seed) << 32);
      long input = r32(in, off) + (r32(in, off + len - 4) << 32);
      long keyed = input ^ ((r64(SECRET, 16) ^ r64(SECRET, 24)) + s);
      long m = P64_1 + ((long) len << 2);
      long mLo = keyed * m;
      long mHi = unsignedMultiplyHigh(keyed, m);
      mHi += mLo << 1;
      mLo ^= mHi >>> 3;
      mLo ^= mLo >>> 35;
      mLo *= MX2;
      mLo ^= mLo >>> 28;
      lo = mLo;
      hi = avalanche(mHi);
    } else if (len > 0) {
      int c1 = in[off] & 0xFF;
      int c2 = in[off + (len >>> 1)] & 0xFF;
      int c3 = in[off + len - 1] & 0xFF;
      int combinedLo = (c1 << 16) | (c2 << 24) | c3 | (len << 8);
      int combinedHi = Integer.rotateLeft(Integer.reverseBytes(combinedLo), 13);
      long bitflipLo = (r32(SECRET, 0) ^ r32(SECRET, 4)) + seed;
      long bitflipHi = (r32(SECRET, 8) ^ r32(SECRET, 12)) - seed;
      lo = avalanche64((combinedLo & 0xFFFFFFFFL) ^ bitflipLo);
      hi = avalanche64((combinedHi & 0xFFFFFFFFL) ^ bitflipHi);
    } else {
      lo = avalanche64(seed ^ r64(SECRET, 64) ^ r64(SECRET, 72));
      hi = avalanche64(seed ^ r64(SECRET, 80) ^ r64(SECRET, 88));
    }
    dst[2 * slot] = hi;
    dst[2 * slot + 1] = lo;
  }

  /** XXH3's mix16B: 16 input bytes against 16 secret bytes, folded 128-bit product. */
  private static long mix16(byte[] in, int at, int secretAt, long seed) {
    long a = r64(in, at) ^ (r64(SECRET, secretAt) + seed);
    long b = r64(in, at + 8) ^ (r64(SECRET, secretAt + 8) - seed);
    return a * b ^ unsignedMultiplyHigh(a, b);
  }

  private static long avalanche(long h) {
    h ^= h >>> 37;
    h *= MX1;
    return h ^ (h >>> 32);
  }

  private static long avalanche64(long h) {
    h ^= h >>> 33;
    h *= P64_2;
    h ^= h >>> 29;
    h *= P64_3;
    return h ^ (h >>> 32);
  }

  /** The high 64 bits of the unsigned 128-bit product (Math.unsignedMultiplyHigh is JDK 18). */
  private static long unsignedMultiplyHigh(long a, long b) {
    return Math.multiplyHigh(a, b) + ((a >> 63) & b) + ((b >> 63) & a);
  }

  private static long r64(byte[] b, int at) {
    return (long) LONG.get(b, at);
  }

  private static long r32(byte[] b, int at) {
    return (int) INT.get(b, at) & 0xFFFFFFFFL;
  }
}
