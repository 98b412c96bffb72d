package dev.idem.core.filter;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashSet;
import java.util.List;
import java.util.Set;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Tuple;
import net.jqwik.api.constraints.IntRange;

/** Invariant 1 of DESIGN.md, for every filter type: no false negatives, ever. */
class FilterPropertiesTest {

  record Key(long hi, long lo) {}

  @Provide
  Arbitrary<List<Key>> keys() {
    Arbitrary<Long> any = Arbitraries.longs();
    // small values too: fingerprints are uniform, but the code must not depend on it
    Arbitrary<Long> small = Arbitraries.longs().between(-3, 3);
    Arbitrary<Long> part = Arbitraries.frequencyOf(Tuple.of(9, any), Tuple.of(1, small));
    return Combinators.combine(part, part).as(Key::new).list().ofMaxSize(3000);
  }

  @Property(tries = 200)
  void noFalseNegatives(@ForAll("keys") List<Key> keys, @ForAll FilterType type,
      @ForAll @IntRange(min = 1, max = 5000) int capacity) {
    MembershipFilter filter = Filters.create(type, capacity, 0.01);
    List<Key> stored = new java.util.ArrayList<>();
    for (Key k : keys) {
      try {
        filter.put(k.hi(), k.lo());
        stored.add(k);
      } catch (FilterFullException e) {
        assertThat(type).isEqualTo(FilterType.CUCKOO); // the only fixed-capacity type
      }
    }
    for (Key k : stored) {
      assertThat(filter.mightContain(k.hi(), k.lo())).as("%s after put", k).isTrue();
    }
  }

  @Property(tries = 200)
  void putReportsChangeOnlyForKeysNotSeenBefore(@ForAll("keys") List<Key> keys,
      @ForAll FilterType type) {
    MembershipFilter filter = Filters.create(type, 3000, 0.01);
    Set<Key> seen = new HashSet<>();
    long changed = 0;
    for (Key k : keys) {
      boolean wasMaybe = filter.mightContain(k.hi(), k.lo());
      boolean didChange = filter.put(k.hi(), k.lo());
      // changed ⇔ the filter answered "certainly new" just before
      assertThat(didChange).isEqualTo(!wasMaybe);
      if (didChange) {
        assertThat(seen).as("a changing put means a new key").doesNotContain(k);
        changed++;
      }
      seen.add(k);
      assertThat(filter.put(k.hi(), k.lo())).as("second put of %s", k).isFalse();
    }
    assertThat(filter.approximateCount()).isEqualTo(changed);
  }

  @Property(tries = 100)
  void batchOperationsAnswerLikeSingleOnes(@ForAll("keys") List<Key> keys,
      @ForAll FilterType type) {
    MembershipFilter single = Filters.create(type, 2000, 0.05);
    MembershipFilter batch = Filters.create(type, 2000, 0.05);
    long[] fps = pairs(keys);
    int half = keys.size() / 2;
    boolean[] changed = new boolean[keys.size()];
    batch.putAll(fps, 0, half / 2, changed);
    batch.putAll(fps, half / 2, half, changed);
    for (int i = 0; i < half; i++) {
      assertThat(changed[i]).isEqualTo(single.put(keys.get(i).hi(), keys.get(i).lo()));
    }
    boolean[] answers = new boolean[keys.size()];
    batch.mightContainAll(fps, 0, keys.size(), answers);
    for (int i = 0; i < keys.size(); i++) {
      assertThat(answers[i]).isEqualTo(single.mightContain(keys.get(i).hi(), keys.get(i).lo()));
    }
  }

  @Property(tries = 100)
  void prefetchChangesNoAnswer(@ForAll("keys") List<Key> keys, @ForAll FilterType type) {
    MembershipFilter plain = Filters.create(type, 3000, 0.05);
    MembershipFilter hinted = Filters.create(type, 3000, 0.05);
    long[] fps = pairs(keys);
    for (int i = 0; i < keys.size(); i++) {
      if (i % 7 == 0) {
        hinted.prefetch(fps, i, Math.min(keys.size(), i + 7));
      }
      Key k = keys.get(i);
      assertThat(hinted.mightContain(k.hi(), k.lo()))
          .isEqualTo(plain.mightContain(k.hi(), k.lo()));
      if (i % 3 != 0) {
        assertThat(hinted.put(k.hi(), k.lo())).isEqualTo(plain.put(k.hi(), k.lo()));
      }
    }
    assertThat(hinted.approximateCount()).isEqualTo(plain.approximateCount());
  }

  private static long[] pairs(List<Key> keys) {
    long[] fps = new long[2 * keys.size()];
    for (int i = 0; i < keys.size(); i++) {
      fps[2 * i] = keys.get(i).hi();
      fps[2 * i + 1] = keys.get(i).lo();
    }
    return fps;
  }
}
