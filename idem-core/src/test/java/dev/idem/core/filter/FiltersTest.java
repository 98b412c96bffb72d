package dev.idem.core.filter;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** The factory: every type is built with its defaults, and the default choice is made once. */
class FiltersTest {

  @ParameterizedTest
  @EnumSource(FilterType.class)
  void createBuildsTheTypeAskedForSizedForN(FilterType type) {
    MembershipFilter f = Filters.create(type, 10_000, 0.01);
    assertThat(f.type()).isEqualTo(type);
    assertThat(f.approximateCount()).isZero();
    if (type.isBloom()) {
      assertThat(f.bitSize()).isEqualTo(type.layout(10_000, 0.01).bitSize());
    }
    if (type == FilterType.CUCKOO
        || type == FilterType.EXACT
        || type == FilterType.EXACT_STRIPED) { // round n up to buckets, slots or stripe margins
      assertThat(f.capacity()).isBetween(10_000L, 15_000L);
    } else {
      assertThat(f.capacity()).isEqualTo(10_000);
    }
  }

  @Test
  void aKnownKeyCountGetsABlockedFilterAnUnknownOneAScalableFilter() {
    assertThat(Filters.defaultType(1)).isEqualTo(FilterType.BLOCKED);
    assertThat(Filters.defaultType(0)).isEqualTo(FilterType.SCALABLE);
    assertThat(Filters.defaultType(-1)).isEqualTo(FilterType.SCALABLE);
    assertThat(Filters.forKeys(null, 5000, 9999, 0.01).type()).isEqualTo(FilterType.BLOCKED);
    assertThat(Filters.forKeys(null, -1, 9999, 0.01).type()).isEqualTo(FilterType.SCALABLE);
    assertThat(Filters.forKeys(FilterType.BLOOM, -1, 0, 0.01).type()).isEqualTo(FilterType.BLOOM);
  }

  @Test
  void sizedForTheKeyCountElseTheGuessElseTheUnknownDefault() {
    assertThat(Filters.forKeys(FilterType.BLOOM, 5000, 9999, 0.01).capacity()).isEqualTo(5000);
    assertThat(Filters.forKeys(FilterType.BLOOM, -1, 9999, 0.01).capacity()).isEqualTo(9999);
    assertThat(Filters.forKeys(FilterType.BLOOM, 0, 0, 0.01).capacity())
        .isEqualTo(Filters.UNKNOWN_KEYS_CAPACITY);
    assertThat(Filters.forKeys(null, -1, -1, 0.01).capacity())
        .isEqualTo(Filters.UNKNOWN_KEYS_CAPACITY);
  }
}
