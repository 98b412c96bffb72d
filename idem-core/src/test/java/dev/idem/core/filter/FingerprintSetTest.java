package dev.idem.core.filter;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idem.core.Fingerprinter;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import org.junit.jupiter.api.Test;

/** The exact set against the contract (its rate is zero), and against a hash set. */
class FingerprintSetTest extends MembershipFilterContract {

  private static final Fingerprinter FP = Fingerprinter.xxh3();

  @Override
  MembershipFilter create(long n, double p) {
    return FingerprintSet.withExpectedSize(n);
  }

  record Key(long hi, long lo) {}

  enum Kind {
    ADD,
    REMOVE,
    CONTAINS
  }

  record Op(Kind kind, Key key) {}

  /**
   * Few distinct his, so keys crowd the same home slots and long probe runs wrap around the end of
   * the table; (0, 0), the empty-slot marker, is among the keys.
   */
  @Provide
  Arbitrary<List<Op>> operations() {
    Arbitrary<Long> hi =
        Arbitraries.oneOf(
            Arbitraries.of(0L, -1L, Long.MIN_VALUE, Long.MAX_VALUE), Arbitraries.longs());
    Arbitrary<Long> lo = Arbitraries.longs().between(0, 5);
    Arbitrary<Key> key = Combinators.combine(hi, lo).as(Key::new);
    return Combinators.combine(Arbitraries.of(Kind.class), key).as(Op::new).list().ofMaxSize(600);
  }

  @Property(tries = 300)
  void behavesLikeAHashSet(@ForAll("operations") List<Op> ops) {
    FingerprintSet set = FingerprintSet.withExpectedSize(4); // grows several times
    Set<Key> model = new HashSet<>();
    for (Op op : ops) {
      Key k = op.key();
      switch (op.kind()) {
        case ADD -> assertThat(set.addIfAbsent(k.hi(), k.lo())).isEqualTo(model.add(k));
        case REMOVE -> assertThat(set.remove(k.hi(), k.lo())).isEqualTo(model.remove(k));
        case CONTAINS -> assertThat(set.contains(k.hi(), k.lo())).isEqualTo(model.contains(k));
      }
      assertThat(set.size()).isEqualTo(model.size());
    }
    for (Key k : model) {
      assertThat(set.contains(k.hi(), k.lo())).isTrue();
    }
    List<Key> listed = new ArrayList<>();
    set.forEach((h, l) -> listed.add(new Key(h, l)));
    assertThat(listed).containsExactlyInAnyOrderElementsOf(model);
  }

  /**
   * Keys from a few his that land in a handful of neighbouring home buckets of a larger table: long
   * runs of full buckets, the "passed" order bit set and cleared, backward shifts across many
   * buckets, runs that wrap past the last bucket; with snapshots taken and restored midway.
   */
  @Provide
  Arbitrary<List<Op>> crowdedOperations() {
    // his spread over the top bits map to buckets near 0, near the middle and near the end
    Arbitrary<Long> hi =
        Arbitraries.oneOf(
            Arbitraries.longs().between(0, 1L << 58),
            Arbitraries.longs().between(-(1L << 58), -1),
            Arbitraries.longs().between(Long.MAX_VALUE - (1L << 58), Long.MAX_VALUE),
            Arbitraries.of(0L, -1L, Long.MIN_VALUE, Long.MAX_VALUE));
    Arbitrary<Long> lo = Arbitraries.longs().between(0, 3);
    Arbitrary<Key> key = Combinators.combine(hi, lo).as(Key::new);
    Arbitrary<Kind> kind = Arbitraries.of(Kind.class);
    return Combinators.combine(kind, key).as(Op::new).list().ofMinSize(50).ofMaxSize(3000);
  }

  @Property(tries = 200)
  void crowdedBucketsBehaveLikeAHashSetAcrossSnapshots(
      @ForAll("crowdedOperations") List<Op> ops, @ForAll boolean presized) throws IOException {
    FingerprintSet set = FingerprintSet.withExpectedSize(presized ? 3000 : 4);
    Set<Key> model = new HashSet<>();
    int step = 0;
    for (Op op : ops) {
      Key k = op.key();
      switch (op.kind()) {
        case ADD -> assertThat(set.addIfAbsent(k.hi(), k.lo())).isEqualTo(model.add(k));
        case REMOVE -> assertThat(set.remove(k.hi(), k.lo())).isEqualTo(model.remove(k));
        case CONTAINS -> assertThat(set.contains(k.hi(), k.lo())).isEqualTo(model.contains(k));
      }
      if (++step % 500 == 0) {
        set = (FingerprintSet) FilterSnapshot.fromBytes(FilterSnapshot.toBytes(set, FP)).filter();
      }
      assertThat(set.size()).isEqualTo(model.size());
    }
    for (Key k : model) {
      assertThat(set.contains(k.hi(), k.lo())).as("%s", k).isTrue();
    }
    for (Op op : ops) {
      Key k = op.key();
      assertThat(set.contains(k.hi(), k.lo())).as("%s", k).isEqualTo(model.contains(k));
    }
    List<Key> listed = new ArrayList<>();
    set.forEach((h, l) -> listed.add(new Key(h, l)));
    assertThat(listed).containsExactlyInAnyOrderElementsOf(model);
    FingerprintSet restored =
        (FingerprintSet) FilterSnapshot.fromBytes(FilterSnapshot.toBytes(set, FP)).filter();
    List<Key> listedAgain = new ArrayList<>();
    restored.forEach((h, l) -> listedAgain.add(new Key(h, l)));
    assertThat(listedAgain).containsExactlyElementsOf(listed);
    for (Key k : model) {
      assertThat(restored.remove(k.hi(), k.lo())).isTrue();
    }
    assertThat(restored.size()).isZero();
  }

  @Test
  void layoutZeroSnapshotsLoadIntoBuckets() throws IOException {
    // layout 0, as written before buckets: 8 slots in linear-probing order, home reduce(hi, 8)
    long[][] keys = {{5L << 60, 1}, {(5L << 60) + 1, 2}, {-1L, 3}, {1, 4}};
    long[] slots = new long[16];
    for (long[] k : keys) {
      int i = (int) AbstractBloomFilter.reduce(k[0], 8);
      while ((slots[2 * i] | slots[2 * i + 1]) != 0) {
        i = (i + 1) % 8;
      }
      slots[2 * i] = k[0];
      slots[2 * i + 1] = k[1];
    }
    java.nio.ByteBuffer params =
        java.nio.ByteBuffer.allocate(24)
            .order(java.nio.ByteOrder.LITTLE_ENDIAN)
            .putLong(8)
            .putDouble(0.75)
            .putInt(1)
            .putInt(0)
            .flip();
    FingerprintSet set =
        FingerprintSet.restore(params, keys.length + 1, n -> HeapBitArray.wrap(slots));
    assertThat(set.size()).isEqualTo(5);
    assertThat(set.contains(0, 0)).isTrue();
    for (long[] k : keys) {
      assertThat(set.contains(k[0], k[1])).isTrue();
      assertThat(set.contains(k[0], k[1] + 10)).isFalse();
    }
    assertThat(set.layout()).containsEntry("slots_per_bucket", 4);
  }

  @Test
  void presizedSetHoldsItsKeysWithoutGrowingAtAbout21BytesPerKey() {
    FingerprintSet set = FingerprintSet.withExpectedSize(1_000_000);
    long bits = set.bitSize();
    for (long i = 1; i <= 1_000_000; i++) {
      set.addIfAbsent(i * 0x9E3779B97F4A7C15L, i);
    }
    assertThat(set.bitSize()).as("no growth").isEqualTo(bits);
    assertThat(bits / 8.0 / 1_000_000).isBetween(21.0, 21.5);
    long room = set.capacity() - set.size();
    assertThat(room).as("buckets round the table up by at most 3 slots").isBetween(0L, 3L);
    for (long i = 0; i <= room; i++) {
      set.addIfAbsent(-1 - i, -1);
    }
    assertThat(set.bitSize()).as("grew when full").isEqualTo(2 * bits);
    assertThat(set.size()).isEqualTo(1_000_001 + room);
    for (long i = 1; i <= 1_000_000; i++) {
      assertThat(set.contains(i * 0x9E3779B97F4A7C15L, i)).isTrue();
    }
  }

  @Test
  void refusesBadLoadFactorsAndImpossibleSizes() {
    assertThatThrownBy(() -> FingerprintSet.withExpectedSize(10, 1.0))
        .hasMessageContaining("load factor");
    assertThatThrownBy(() -> FingerprintSet.withExpectedSize(5_000_000_000L))
        .hasMessageContaining("on-disk exact store");
  }
}
