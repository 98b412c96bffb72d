package dev.idem.core.filter;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idem.core.Fingerprint;
import dev.idem.core.Fingerprinter;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.function.IntFunction;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The positions filters derive from fingerprints must be uniform even for the regular keys real
 * data is full of. A partitioned filter fed by a simple random-number generator measured a
 * collision rate ten times above theory with a weak hash; a chi-square test over buckets catches
 * that kind of skew long before it shows.
 */
class HashQualityTest {

  private static final int KEYS = 1 << 20;
  private static final int BUCKETS = 1024;

  /** α = 0.0005 one-sided; the inputs are fixed, so a pass is a pass every time. */
  private static final double Z = 3.29;

  static Stream<Arguments> regularKeySets() {
    return Stream.of(
        Arguments.of(
            "url-000001 …",
            (IntFunction<byte[]>)
                i -> String.format(Locale.ROOT, "url-%06d", i).getBytes(StandardCharsets.US_ASCII)),
        Arguments.of(
            "https://example.com/page?id=N",
            (IntFunction<byte[]>)
                i -> ("https://example.com/page?id=" + i).getBytes(StandardCharsets.US_ASCII)),
        Arguments.of(
            "8-byte big-endian counter",
            (IntFunction<byte[]>) i -> ByteBuffer.allocate(8).putLong(i).array()),
        Arguments.of(
            "one set bit in 128 KiB-wide keys",
            (IntFunction<byte[]>)
                i -> {
                  byte[] key = new byte[KEYS / 8];
                  key[i >>> 3] = (byte) (1 << (i & 7));
                  return key;
                }));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("regularKeySets")
  void positionsOfEveryFilterAreUniform(String name, IntFunction<byte[]> keys) {
    int keyCount = name.startsWith("one set bit") ? KEYS / 16 : KEYS; // wide keys: fewer of them
    long m = 1_000_003; // odd on purpose: no power-of-two luck
    long blocks = 65_537;
    long[] classicFirst = new long[BUCKETS];
    long[] classicFifth = new long[BUCKETS];
    long[] block = new long[BUCKETS];
    long[] inBlock = new long[FilterMath.BLOCK_BITS];
    Fingerprinter fp = Fingerprinter.xxh3();
    for (int i = 0; i < keyCount; i++) {
      Fingerprint f = fp.fingerprint(keys.apply(i));
      long x = f.hi();
      long y = f.lo();
      for (int j = 0; j < 5; j++) {
        if (j == 0) {
          classicFirst[(int) (AbstractBloomFilter.reduce(x, m) * BUCKETS / m)]++;
        }
        if (j == 4) {
          classicFifth[(int) (AbstractBloomFilter.reduce(x, m) * BUCKETS / m)]++;
        }
        x += y;
        y += j;
      }
      block[(int) (AbstractBloomFilter.reduce(f.hi(), blocks) * BUCKETS / blocks)]++;
      inBlock[blockedPosition(f.lo(), i % 9)]++;
    }
    assertUniform(name + " / classic position 1", classicFirst);
    assertUniform(name + " / classic position 5", classicFifth);
    assertUniform(name + " / blocked block index", block);
    assertUniform(name + " / blocked in-block position", inBlock);
  }

  /** The in-block position the blocked filter sets for position {@code i} of a key. */
  private static int blockedPosition(long lo, int i) {
    BitArray probe = new RecordingBitArray();
    BlockedBloomFilter f = new BlockedBloomFilter(1, 0.5, 512, i + 1, probe, 0);
    f.put(0, lo);
    return (int) ((RecordingBitArray) probe).lastBit;
  }

  private static void assertUniform(String what, long[] counts) {
    double chi2 = ChiSquare.statistic(counts);
    double critical = ChiSquare.critical(counts.length - 1, Z);
    assertThat(chi2).as("chi-square of %s (critical %.1f)", what, critical).isLessThan(critical);
  }

  /** Records the last bit set, to read positions through the filter's own code. */
  private static final class RecordingBitArray extends BitArray {
    long lastBit;

    @Override
    long wordCount() {
      return 8;
    }

    @Override
    long word(long index) {
      return 0;
    }

    @Override
    long orWord(long index, long mask) {
      lastBit = index * 64 + Long.numberOfTrailingZeros(mask);
      return 0;
    }

    @Override
    void setWord(long index, long value) {
      throw new UnsupportedOperationException();
    }

    @Override
    void writeTo(java.nio.channels.WritableByteChannel out, java.util.zip.CRC32C crc) {
      throw new UnsupportedOperationException();
    }
  }
}
