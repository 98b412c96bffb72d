package dev.idem.core.filter;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.LongRange;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The cuckoo filter against the contract, and its load, eviction, deletion and width rules. */
class CuckooFilterTest extends MembershipFilterContract {

  @Override
  MembershipFilter create(long n, double p) {
    return CuckooFilter.create(n, p);
  }

  @Override
  boolean mayBecomeFull() {
    return true;
  }

  /** Filled until the stash is full too, so the snapshot carries stash entries. */
  @Override
  MembershipFilter filledForSnapshot(SplittableRandom random) {
    CuckooFilter f = CuckooFilter.withFingerprintBits(3200, 9);
    for (int i = 0; i < 3000; i++) {
      f.put(random.nextLong(), random.nextLong());
    }
    try {
      while (true) {
        f.add(random.nextLong(), random.nextLong());
      }
    } catch (FilterFullException e) {
      assertThat(f.layout().get("stash")).isEqualTo(CuckooFilter.STASH_CAPACITY);
    }
    f.remove(random.nextLong(), random.nextLong());
    return f;
  }

  @Property(tries = 100)
  void countFollowsTheCopiesAddedAndRemoved(
      @ForAll long hi, @ForAll long lo, @ForAll @IntRange(min = 0, max = 8) int copies) {
    CuckooFilter f = CuckooFilter.create(1000, 0.001);
    assertThat(f.count(hi, lo)).isZero();
    for (int i = 0; i < copies; i++) {
      f.add(hi, lo);
      assertThat(f.count(hi, lo)).isEqualTo(i + 1);
    }
    for (int i = copies; i > 0; i--) {
      assertThat(f.remove(hi, lo)).isTrue();
      assertThat(f.count(hi, lo)).isEqualTo(i - 1);
    }
  }

  private static final double Z999 = 3.2905;

  @ParameterizedTest(name = "{0} keys")
  @ValueSource(longs = {1_000, 65_536, 100_003, 1_000_000})
  void reaches95PercentLoadBeforeTheFirstFailedInsert(long n) {
    CuckooFilter f = CuckooFilter.create(n, 0.001);
    assertThat(f.bucketCount()).isEqualTo((long) Math.ceil(n / (4 * 0.95)));
    SplittableRandom random = new SplittableRandom(n);
    long stored = 0;
    try {
      while (true) {
        f.add(random.nextLong(), random.nextLong());
        stored++;
      }
    } catch (FilterFullException e) {
      assertThat(e.getMessage()).contains("nothing stored was lost");
    }
    double load = (double) stored / (4 * f.bucketCount());
    assertThat(load).as("load at first failure").isGreaterThanOrEqualTo(0.95);
    assertThat(stored).isGreaterThanOrEqualTo(n);
  }

  @Property(tries = 30)
  void aFailedInsertNeverLosesAStoredFingerprint(
      @ForAll @LongRange(min = 8, max = 3000) long n,
      @ForAll @IntRange(min = 4, max = 12) int bits,
      @ForAll long seed) {
    // adversarial: overfill a small filter with narrow fingerprints, far past its capacity
    CuckooFilter f = CuckooFilter.withFingerprintBits(n, bits);
    SplittableRandom random = new SplittableRandom(seed);
    List<long[]> stored = new ArrayList<>();
    int failures = 0;
    for (long i = 0; i < 3 * n; i++) {
      long[] key = {random.nextLong(), random.nextLong()};
      try {
        f.add(key[0], key[1]);
        stored.add(key);
      } catch (FilterFullException e) {
        failures++;
      }
    }
    assertThat(failures).isPositive();
    assertThat(f.approximateCount()).isEqualTo(stored.size());
    for (long[] key : stored) {
      assertThat(f.mightContain(key[0], key[1])).isTrue();
    }
    // and every one can be removed again, after which the filter is empty
    for (long[] key : stored) {
      assertThat(f.remove(key[0], key[1])).isTrue();
    }
    assertThat(f.approximateCount()).isZero();
    assertThat(f.load()).isZero();
  }

  record Op(boolean remove, int key) {}

  @Provide
  Arbitrary<List<Op>> operations() {
    return Combinators.combine(Arbitraries.of(true, false), Arbitraries.integers().between(0, 60))
        .as(Op::new)
        .list()
        .ofMaxSize(500);
  }

  @Property(tries = 300)
  void deletesFollowAModelMultiset(@ForAll("operations") List<Op> ops) {
    CuckooFilter f = CuckooFilter.withFingerprintBits(200, 6); // narrow: fingerprints collide
    Map<Integer, Integer> model = new HashMap<>();
    for (Op op : ops) {
      long hi = op.key() * 0x9E3779B97F4A7C15L;
      long lo = (op.key() + 1) * 0xC2B2AE3D27D4EB4FL;
      int present = model.getOrDefault(op.key(), 0);
      if (op.remove()) {
        if (present > 0) {
          assertThat(f.remove(hi, lo)).isTrue();
          model.put(op.key(), present - 1);
        }
      } else if (present < 2 * CuckooFilter.SLOTS) {
        try {
          f.add(hi, lo);
          model.put(op.key(), present + 1);
        } catch (FilterFullException e) {
          // copies of one key can only live in its two buckets: they fill up; nothing is lost
        }
      } else {
        assertThatThrownBy(() -> f.add(hi, lo))
            .isInstanceOf(IllegalStateException.class)
            .hasMessageContaining("already stored 8 times");
      }
      for (Map.Entry<Integer, Integer> e : model.entrySet()) {
        if (e.getValue() > 0) {
          int k = e.getKey();
          assertThat(f.mightContain(k * 0x9E3779B97F4A7C15L, (k + 1) * 0xC2B2AE3D27D4EB4FL))
              .as("key %d held %d times", k, e.getValue())
              .isTrue();
        }
      }
    }
    assertThat(f.approximateCount())
        .isEqualTo(model.values().stream().mapToLong(Integer::longValue).sum());
  }

  @ParameterizedTest(name = "{0}-bit fingerprints")
  @ValueSource(ints = {8, 13, 16})
  void measuredRateMatchesTheoryAtFullLoad(int bits) {
    long n = 200_000;
    CuckooFilter f = CuckooFilter.withFingerprintBits(n, bits);
    SplittableRandom random = new SplittableRandom(bits);
    for (long i = 0; i < n; i++) {
      f.put(random.nextLong(), random.nextLong());
    }
    long queries = bits == 16 ? 20_000_000 : 4_000_000;
    long falsePositives = 0;
    for (long i = 0; i < queries; i++) {
      falsePositives += f.mightContain(random.nextLong(), random.nextLong()) ? 1 : 0;
    }
    double low = FppVerifier.wilson(falsePositives, queries, Z999, -1);
    double high = FppVerifier.wilson(falsePositives, queries, Z999, +1);
    assertThat(f.expectedFpp()).as("theory vs measured [%s, %s]", low, high).isBetween(low, high);
  }

  @ParameterizedTest(name = "p = {0}")
  @ValueSource(doubles = {0.002, 0.001, 0.0001})
  void fingerprintWidthFollowsTheRequestedRateAndBeatsBloomBelowAFewPerMille(double p) {
    CuckooFilter f = CuckooFilter.create(1_000_000, p);
    assertThat(f.fingerprintBits()).isEqualTo((int) Math.ceil(Math.log(8 / p) / Math.log(2)));
    assertThat(CuckooFilter.falsePositiveRate(0.95, f.fingerprintBits())).isLessThanOrEqualTo(p);
    // 13 bits at 0.1 %: 13.68 bits/key at 95 % load, against classic Bloom's 14.38
    assertThat((double) f.bitSize() / f.capacity())
        .isLessThan((double) FilterMath.optimalBits(1_000_000, p) / 1_000_000);
  }
}
