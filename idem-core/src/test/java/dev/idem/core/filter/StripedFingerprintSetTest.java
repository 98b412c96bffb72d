package dev.idem.core.filter;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idem.core.Fingerprinter;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;
import org.junit.jupiter.api.Test;

/**
 * The striped set against the filter contract, against a hash set, and with threads that own
 * disjoint stripes adding at once: the set they build is the one a single thread builds.
 */
class StripedFingerprintSetTest extends MembershipFilterContract {

  @Override
  MembershipFilter create(long n, double p) {
    return StripedFingerprintSet.withExpectedSize(n);
  }

  record Key(long hi, long lo) {}

  /** Low words from the whole range (every stripe) and a few his (crowded home slots). */
  @Provide
  Arbitrary<List<Key>> stripedKeys() {
    Arbitrary<Long> hi = Arbitraries.oneOf(Arbitraries.of(0L, -1L, 7L), Arbitraries.longs());
    Arbitrary<Long> lo = Arbitraries.oneOf(Arbitraries.of(0L, -1L), Arbitraries.longs());
    return Combinators.combine(hi, lo).as(Key::new).list().ofMaxSize(3000);
  }

  @Property(tries = 200)
  void behavesLikeAHashSetAndGrowsStripeByStripe(
      @ForAll("stripedKeys") List<Key> keys, @ForAll boolean sizedByRecords) {
    StripedFingerprintSet set =
        sizedByRecords
            ? StripedFingerprintSet.forRecords(keys.size() / 3)
            : StripedFingerprintSet.withExpectedSize(0);
    Set<Key> model = new HashSet<>();
    for (Key k : keys) {
      assertThat(set.addIfAbsent(k.hi(), k.lo())).isEqualTo(model.add(k));
      assertThat(set.contains(k.hi(), k.lo())).isTrue();
    }
    assertThat(set.size()).isEqualTo(model.size());
    List<Key> listed = new ArrayList<>();
    set.forEach((h, l) -> listed.add(new Key(h, l)));
    assertThat(listed).containsExactlyInAnyOrderElementsOf(model);
  }

  @Property(tries = 30)
  void threadsOwningDisjointStripesBuildTheSetOneThreadBuilds(
      @ForAll @IntRange(min = 2, max = 8) int threads, @ForAll long seed) throws Exception {
    SplittableRandom random = new SplittableRandom(seed);
    long[] fps = new long[2 * 40_000];
    for (int i = 0; i < fps.length / 2; i++) {
      // a third are repeats of earlier keys
      int from = i > 0 && random.nextInt(3) == 0 ? random.nextInt(i) : i;
      fps[2 * i] = from == i ? random.nextLong() : fps[2 * from];
      fps[2 * i + 1] = from == i ? random.nextLong() : fps[2 * from + 1];
    }
    StripedFingerprintSet alone = StripedFingerprintSet.withExpectedSize(1000);
    boolean[] expected = new boolean[fps.length / 2];
    for (int i = 0; i < expected.length; i++) {
      expected[i] = alone.addIfAbsent(fps[2 * i], fps[2 * i + 1]);
    }
    StripedFingerprintSet shared = StripedFingerprintSet.withExpectedSize(1000); // grows meanwhile
    boolean[] answers = new boolean[expected.length];
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    try {
      List<Future<?>> done = new ArrayList<>();
      for (int t = 0; t < threads; t++) {
        int mine = t;
        done.add(
            pool.submit(
                () -> {
                  for (int i = 0; i < answers.length; i++) {
                    if (shared.stripeOf(fps[2 * i + 1]) % threads == mine) {
                      answers[i] = shared.addIfAbsent(fps[2 * i], fps[2 * i + 1]);
                    }
                  }
                }));
      }
      for (Future<?> f : done) {
        f.get();
      }
    } finally {
      pool.shutdown();
    }
    assertThat(answers).isEqualTo(expected);
    assertThat(FilterSnapshot.toBytes(shared, Fingerprinter.xxh3()))
        .as("the same snapshot bytes")
        .isEqualTo(FilterSnapshot.toBytes(alone, Fingerprinter.xxh3()));
  }

  @Test
  void aSnapshotRestoresEveryStripeAndADamagedStripeCountIsRefused() throws IOException {
    StripedFingerprintSet set = StripedFingerprintSet.withExpectedSize(100);
    for (long i = 1; i < 5000; i++) {
      set.addIfAbsent(i * 0x9E3779B97F4A7C15L, i * 0xC2B2AE3D27D4EB4FL);
    }
    set.addIfAbsent(0, 0);
    byte[] bytes = FilterSnapshot.toBytes(set, Fingerprinter.xxh3());
    MembershipFilter back = FilterSnapshot.fromBytes(bytes).filter();
    assertThat(back).isInstanceOf(StripedFingerprintSet.class);
    assertThat(back.approximateCount()).isEqualTo(5000);
    for (long i = 1; i < 5000; i++) {
      assertThat(back.mightContain(i * 0x9E3779B97F4A7C15L, i * 0xC2B2AE3D27D4EB4FL)).isTrue();
    }
    assertThat(back.mightContain(0, 0)).isTrue();
    assertThat(back.mightContain(1, 1)).isFalse();
    ByteBuffer threeStripes =
        ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN).putInt(3).putInt(0);
    assertThatThrownBy(() -> StripedFingerprintSet.restore(threeStripes.flip(), 0, null))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("stripes=3");
  }

  /**
   * {@link StripedFingerprintSet#forRecords} ends sized by the distinct keys of its records, not by
   * the records: 2 M records whose repeats are spread uniformly (each repeat a uniformly chosen
   * earlier record), as in the dedup job's benchmark.
   */
  @Test
  void sizedForRecordsEndsSizedByTheDistinctKeys() {
    int records = 2_000_000;
    long recordBytes = StripedFingerprintSet.bytesFor(records);
    // no repeats: within a few percent of a set sized for every record
    StripedFingerprintSet all = fill(records, 0.0, 1);
    assertThat(all.size()).isEqualTo(records);
    assertThat((double) all.bitSize() / 8 / recordBytes).isBetween(0.95, 1.15);
    // 30 % repeats: the set is sized for the 1.4 M distinct keys, not the 2 M records
    StripedFingerprintSet some = fill(records, 0.3, 2);
    double perDistinct = (double) some.bitSize() / 8 / StripedFingerprintSet.bytesFor(some.size());
    assertThat(perDistinct).as("bytes over a set sized for the distinct keys").isBetween(1.0, 1.3);
    assertThat(some.bitSize() / 8).isLessThan((long) (0.85 * recordBytes));
    // 90 % repeats: the set never needs more than it started with, half the records
    StripedFingerprintSet few = fill(records, 0.9, 3);
    assertThat(few.bitSize() / 8).isEqualTo(StripedFingerprintSet.bytesFor(records / 2));
  }

  private static StripedFingerprintSet fill(int records, double repeatShare, long seed) {
    StripedFingerprintSet set = StripedFingerprintSet.forRecords(records);
    SplittableRandom random = new SplittableRandom(seed);
    long[] his = new long[records];
    long[] los = new long[records];
    for (int i = 0; i < records; i++) {
      boolean repeat = i > 0 && random.nextDouble() < repeatShare;
      int from = repeat ? random.nextInt(i) : i;
      his[i] = repeat ? his[from] : random.nextLong();
      los[i] = repeat ? los[from] : random.nextLong();
      set.addIfAbsent(his[i], los[i]);
    }
    return set;
  }

  @Test
  void presizedHoldsItsKeysWithoutGrowingAtAbout22BytesPerKey() {
    StripedFingerprintSet set = StripedFingerprintSet.withExpectedSize(1_000_000);
    long bits = set.bitSize();
    SplittableRandom random = new SplittableRandom(1);
    for (int i = 0; i < 1_000_000; i++) {
      set.addIfAbsent(random.nextLong(), random.nextLong());
    }
    assertThat(set.bitSize()).as("no stripe grew").isEqualTo(bits);
    assertThat(bits / 8.0 / 1_000_000).isBetween(21.3, 22.1);
    assertThat(StripedFingerprintSet.bytesFor(1_000_000)).isEqualTo(bits / 8);
  }
}
