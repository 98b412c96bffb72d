package dev.idem.engine.store;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Arrays;
import java.util.SplittableRandom;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;

class FingerprintOrderTest {

  /** Random words, with few distinct high words when {@code fewHighs}, so ties are common. */
  @Property(tries = 60)
  void ordersByUnsignedHighThenLowWord(
      @ForAll @IntRange(min = 0, max = 3000) int n, @ForAll long seed, @ForAll boolean fewHighs) {
    SplittableRandom rnd = new SplittableRandom(seed);
    PendingKeys keys = new PendingKeys();
    long[] highs = {0, -1, Long.MIN_VALUE, Long.MAX_VALUE, 1, 0x80L};
    for (int i = 0; i < n; i++) {
      long hi = fewHighs ? highs[rnd.nextInt(highs.length)] : rnd.nextLong();
      long lo = rnd.nextInt(4) == 0 ? highs[rnd.nextInt(highs.length)] : rnd.nextLong();
      keys.add(hi, lo, null);
    }
    // a permutation, in order: equal fingerprints may come in any order
    int[] got = FingerprintOrder.of(keys);
    assertThat(got).hasSize(n);
    assertThat(Arrays.stream(got).distinct().count()).isEqualTo(n);
    for (int i = 1; i < n; i++) {
      int c = Long.compareUnsigned(keys.hi(got[i - 1]), keys.hi(got[i]));
      if (c == 0) {
        c = Long.compareUnsigned(keys.lo(got[i - 1]), keys.lo(got[i]));
      }
      assertThat(c).as("position %d", i).isLessThanOrEqualTo(0);
    }
  }
}
