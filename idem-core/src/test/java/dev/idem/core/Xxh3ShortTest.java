package dev.idem.core;

import static org.assertj.core.api.Assertions.assertThat;

import com.dynatrace.hash4j.hashing.HashValue128;
import com.dynatrace.hash4j.hashing.Hashing;
import java.util.SplittableRandom;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;
import org.junit.jupiter.api.Test;

/**
 * The allocation-free XXH3-128 gives hash4j's value, so fingerprints and snapshots are unchanged.
 */
class Xxh3ShortTest {

  private static final long[] SEEDS = {0, 1, -1, 0x9E3779B97F4A7C15L, Long.MIN_VALUE};

  @Test
  void everyLengthAndSeedMatchesHash4j() {
    SplittableRandom random = new SplittableRandom(18);
    long[] out = new long[4];
    for (int len = 0; len <= Xxh3Short.MAX_LENGTH; len++) {
      for (int round = 0; round < 20; round++) {
        byte[] data = new byte[len + 16];
        random.nextBytes(data);
        int off = random.nextInt(17);
        long seed = round < SEEDS.length ? SEEDS[round] : random.nextLong();
        Xxh3Short.hash(data, off, len, seed, out, 1);
        HashValue128 expected = Hashing.xxh3_128(seed).hashBytesTo128Bits(data, off, len);
        assertThat(out[2])
            .as("len %d seed %d hi", len, seed)
            .isEqualTo(expected.getMostSignificantBits());
        assertThat(out[3])
            .as("len %d seed %d lo", len, seed)
            .isEqualTo(expected.getLeastSignificantBits());
      }
    }
  }

  @Property(tries = 500)
  void fingerprintIntoEqualsFingerprint(
      @ForAll @Size(max = 400) byte[] key, @ForAll long seed, @ForAll @IntRange(max = 3) int slot) {
    Fingerprinter fp = Fingerprinter.xxh3().withSeed(seed);
    long[] dst = new long[8];
    fp.fingerprintInto(key, 0, key.length, dst, slot);
    Fingerprint f = fp.fingerprint(key);
    assertThat(dst[2 * slot]).isEqualTo(f.hi());
    assertThat(dst[2 * slot + 1]).isEqualTo(f.lo());
  }
}
