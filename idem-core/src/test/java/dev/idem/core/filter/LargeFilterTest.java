package dev.idem.core.filter;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** Filters beyond 2^31 bits (500 M keys at 0.1 % is 7.2e9 bits) index with longs throughout. */
class LargeFilterTest {

  private static final long TWO_TO_31 = 1L << 31;

  @ParameterizedTest
  @EnumSource(
      value = FilterType.class,
      names = {"BLOOM", "BLOCKED", "PARTITIONED"})
  void positionsBeyond2To31AreUsedAndFound(FilterType type) {
    // ≈ 2.16e9 bits, ≈ 270 MB
    AbstractBloomFilter f = (AbstractBloomFilter) Filters.create(type, 150_000_000L, 0.001);
    assertThat(f.bitSize()).isGreaterThan(TWO_TO_31);
    SplittableRandom random = new SplittableRandom(5);
    long[] keys = new long[2 * 100_000];
    for (int i = 0; i < keys.length; i++) {
      keys[i] = random.nextLong();
    }
    for (int i = 0; i < keys.length; i += 2) {
      f.put(keys[i], keys[i + 1]);
    }
    for (int i = 0; i < keys.length; i += 2) {
      assertThat(f.mightContain(keys[i], keys[i + 1])).isTrue();
    }
    long highWords = 0;
    for (long w = TWO_TO_31 / 64; w < f.bits.wordCount(); w++) {
      highWords += f.bits.word(w) != 0 ? 1 : 0;
    }
    // ≈ 0.5 % of the bits lie above 2^31, so ≈ 0.5 % of ≈ 1e6 set bits land there
    assertThat(highWords).isGreaterThan(1000);
  }

  @Test
  void aFilterLargerThanTheHeapIsRefusedWithAdvice() {
    long bytesWanted = FilterMath.optimalBits(4_000_000_000L, 0.01) / 8; // ≈ 4.5 GiB
    assertThat(bytesWanted).isGreaterThan(Runtime.getRuntime().maxMemory());
    assertThatThrownBy(() -> BloomFilter.create(4_000_000_000L, 0.01))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("not enough memory for a filter of")
        .hasMessageContaining("-Xmx");
  }
}
