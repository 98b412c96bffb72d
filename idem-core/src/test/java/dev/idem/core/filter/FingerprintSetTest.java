package dev.idem.core.filter;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

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

  @Test
  void presizedSetHoldsItsKeysWithoutGrowingAtAbout21BytesPerKey() {
    FingerprintSet set = FingerprintSet.withExpectedSize(1_000_000);
    long bits = set.bitSize();
    for (long i = 1; i <= 1_000_000; i++) {
      set.addIfAbsent(i * 0x9E3779B97F4A7C15L, i);
    }
    assertThat(set.bitSize()).as("no growth").isEqualTo(bits);
    assertThat(bits / 8.0 / 1_000_000).isBetween(21.0, 21.5);
    set.addIfAbsent(-1, -1);
    set.addIfAbsent(-2, -2);
    assertThat(set.bitSize()).as("grew when full").isEqualTo(2 * bits);
    assertThat(set.size()).isEqualTo(1_000_002);
  }

  @Test
  void refusesBadLoadFactorsAndImpossibleSizes() {
    assertThatThrownBy(() -> FingerprintSet.withExpectedSize(10, 1.0))
        .hasMessageContaining("load factor");
    assertThatThrownBy(() -> FingerprintSet.withExpectedSize(5_000_000_000L))
        .hasMessageContaining("on-disk exact store");
  }
}
