package dev.idem.core.filter;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idem.core.Fingerprint;
import dev.idem.core.Fingerprinter;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The blocked Bloom filter against the contract (its rate measured at two sizes and rates, and
 * small and over-full of blocks), and the union the Flink operator uses after a rescale.
 */
class BlockedBloomFilterTest extends MembershipFilterContract {

  @Override
  MembershipFilter create(long n, double p) {
    return BlockedBloomFilter.create(n, p);
  }

  @Override
  List<RateCase> rateCases() {
    return List.of(
        new RateCase(200_000, 0.01, 3),
        new RateCase(300_000, 0.001, 4),
        new RateCase(2000, 0.05, 40));
  }

  private static final Fingerprinter FP = Fingerprinter.xxh3();

  private static BlockedBloomFilter filled(String prefix, int keys) {
    BlockedBloomFilter f = BlockedBloomFilter.create(10_000, 0.01);
    for (int i = 0; i < keys; i++) {
      f.put(FP.fingerprint(prefix + i));
    }
    return f;
  }

  @Test
  void unionHoldsTheKeysOfBothFilters() {
    BlockedBloomFilter a = filled("a", 3000);
    BlockedBloomFilter b = filled("b", 3000);
    long countA = a.approximateCount();
    a.unionWith(b);
    for (int i = 0; i < 3000; i++) {
      Fingerprint fa = FP.fingerprint("a" + i);
      Fingerprint fb = FP.fingerprint("b" + i);
      assertThat(a.mightContain(fa) && a.mightContain(fb)).as("key %d", i).isTrue();
    }
    assertThat(a.approximateCount()).isEqualTo(countA + b.approximateCount());
    // the union's bits are exactly the OR of both
    BlockedBloomFilter a2 = filled("a", 3000);
    for (long w = 0; w < a.bits.wordCount(); w++) {
      assertThat(a.bits.word(w)).isEqualTo(a2.bits.word(w) | b.bits.word(w));
    }
  }

  @Test
  void unionOfDifferentLayoutsIsRefusedSayingWhatToDo() {
    BlockedBloomFilter a = BlockedBloomFilter.create(10_000, 0.01);
    BlockedBloomFilter b = BlockedBloomFilter.create(20_000, 0.01);
    assertThat(a.hasSameLayout(b)).isFalse();
    assertThatThrownBy(() -> a.unionWith(b))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("same expected keys and rate");
  }
}
