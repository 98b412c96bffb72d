package dev.idem.core.filter;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import org.junit.jupiter.api.Test;

/** The counting Bloom filter against the contract, and its removal and saturation rules. */
class CountingBloomFilterTest extends MembershipFilterContract {

  @Override
  MembershipFilter create(long n, double p) {
    return CountingBloomFilter.create(n, p);
  }

  /** An operation on one of a few keys, so that keys repeat and are removed again. */
  record Op(boolean remove, int key) {}

  @Provide
  Arbitrary<List<Op>> operations() {
    return Combinators.combine(Arbitraries.of(true, false), Arbitraries.integers().between(0, 40))
        .as(Op::new)
        .list()
        .ofMaxSize(400);
  }

  private static long hi(int key) {
    return key * 0x9E3779B97F4A7C15L;
  }

  private static long lo(int key) {
    return (key + 1) * 0xC2B2AE3D27D4EB4FL;
  }

  @Property(tries = 300)
  void keysStillInTheModelMultisetAreNeverReportedNew(
      @ForAll("operations") List<Op> ops, @ForAll boolean eightBitCounters) {
    // a tiny filter, so that keys share counters and 4-bit counters saturate
    CountingBloomFilter f = CountingBloomFilter.create(20, 0.2, eightBitCounters ? 8 : 4);
    Map<Integer, Integer> model = new HashMap<>();
    for (Op op : ops) {
      int present = model.getOrDefault(op.key(), 0);
      if (op.remove()) {
        if (present > 0) { // remove only what was added: the documented contract
          assertThat(f.remove(hi(op.key()), lo(op.key()))).isTrue();
          model.put(op.key(), present - 1);
        }
      } else {
        f.add(hi(op.key()), lo(op.key()));
        model.put(op.key(), present + 1);
      }
      for (Map.Entry<Integer, Integer> e : model.entrySet()) {
        if (e.getValue() > 0) {
          assertThat(f.mightContain(hi(e.getKey()), lo(e.getKey())))
              .as("key %d held %d times", e.getKey(), e.getValue())
              .isTrue();
        }
      }
    }
    assertThat(f.approximateCount())
        .isEqualTo(model.values().stream().mapToLong(Integer::longValue).sum());
  }

  @Test
  void removingACertainlyAbsentKeyChangesNothing() {
    CountingBloomFilter f = CountingBloomFilter.create(1000, 0.01);
    for (int k = 0; k < 500; k++) {
      f.add(hi(k), lo(k));
    }
    long[] before = words(f);
    int refused = 0;
    for (int k = 10_000; k < 11_000; k++) {
      if (!f.mightContain(hi(k), lo(k))) {
        assertThat(f.remove(hi(k), lo(k))).isFalse();
        refused++;
      }
    }
    assertThat(refused).isGreaterThan(900);
    assertThat(words(f)).isEqualTo(before);
    assertThat(f.approximateCount()).isEqualTo(500);
  }

  @Test
  void saturatedCountersAreFrozenSoRemovalNeverCausesAFalseNegative() {
    CountingBloomFilter f = CountingBloomFilter.create(100, 0.01, 4);
    for (int i = 0; i < 20; i++) {
      f.add(hi(7), lo(7)); // 20 > 15: this key's counters saturate
    }
    assertThat(f.saturatedCounters()).isEqualTo(f.hashCount());
    f.add(hi(8), lo(8));
    for (int i = 0; i < 20; i++) {
      f.remove(hi(7), lo(7));
    }
    assertThat(f.mightContain(hi(7), lo(7))).as("frozen counters stay set").isTrue();
    assertThat(f.mightContain(hi(8), lo(8))).isTrue();
  }

  @Test
  void putStoresOnlyKeysThatAreCertainlyNew() {
    CountingBloomFilter f = CountingBloomFilter.create(1000, 0.01);
    assertThat(f.put(hi(1), lo(1))).isTrue();
    assertThat(f.put(hi(1), lo(1))).isFalse();
    assertThat(f.approximateCount()).isEqualTo(1);
    assertThat(f.remove(hi(1), lo(1))).isTrue();
    assertThat(f.mightContain(hi(1), lo(1))).isFalse();
  }

  private static long[] words(CountingBloomFilter f) {
    BitArray bits = f.payload().get(0);
    long[] w = new long[(int) bits.wordCount()];
    for (int i = 0; i < w.length; i++) {
      w[i] = bits.word(i);
    }
    return w;
  }
}
