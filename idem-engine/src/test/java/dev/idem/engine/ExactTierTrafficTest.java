package dev.idem.engine;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idem.core.filter.FilterType;
import java.util.SplittableRandom;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The point of two tiers (docs/DESIGN.md, invariant 3): the exact tier is read for duplicates and
 * for about a share p of new keys (the filter's false positives), never for every key. A filter is
 * asked for by type: in memory with fingerprints the default is the exact set alone.
 */
class ExactTierTrafficTest {

  @ParameterizedTest(name = "p = {0}")
  @ValueSource(doubles = {0.01, 0.001})
  void newKeysReachTheExactTierAtAboutTheFilterRate(double p) {
    int distinct = 300_000;
    try (Deduplicator d =
        Idem.deduplicator()
            .expectedKeys(distinct)
            .filterType(FilterType.BLOCKED)
            .falsePositiveRate(p)
            .build()) {
      SplittableRandom random = new SplittableRandom(3);
      int next = 0;
      long duplicates = 0;
      while (next < distinct) {
        if (next > 0 && random.nextDouble() < 0.3) {
          assertThat(d.firstSeen("key-" + random.nextInt(next))).isFalse();
          duplicates++;
        } else {
          assertThat(d.firstSeen("key-" + next++)).isTrue();
        }
      }
      DedupStats s = d.stats();
      assertThat(s.kept()).isEqualTo(distinct);
      // every duplicate is a "maybe" that the exact tier confirms
      assertThat(s.exactLookups()).isEqualTo(duplicates + s.falsePositivesRescued());
      // the rate grows as the filter fills, to p at capacity: over the fill it stays below p
      assertThat(s.lookupsPerNewKey()).isPositive().isLessThanOrEqualTo(1.5 * p);
    }
  }
}
