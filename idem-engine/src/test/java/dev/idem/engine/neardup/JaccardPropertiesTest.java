package dev.idem.engine.neardup;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Arrays;
import java.util.HashSet;
import java.util.Set;
import java.util.stream.Collectors;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.LongRange;
import net.jqwik.api.constraints.Size;

class JaccardPropertiesTest {

  @Property
  void exactJaccardIsSymmetricAndMatchesTheSetDefinition(
      @ForAll @Size(max = 60) Set<@LongRange(min = -40, max = 40) Long> a,
      @ForAll @Size(max = 60) Set<@LongRange(min = -40, max = 40) Long> b) {
    long[] x = sorted(a);
    long[] y = sorted(b);
    double j = Jaccard.exact(x, y);
    assertThat(j).isEqualTo(Jaccard.exact(y, x)).isBetween(0.0, 1.0);
    if (!a.isEmpty() && !b.isEmpty()) {
      Set<Long> union = new HashSet<>(a);
      union.addAll(b);
      Set<Long> common = a.stream().filter(b::contains).collect(Collectors.toSet());
      assertThat(j).isEqualTo((double) common.size() / union.size());
    }
  }

  @Property
  void aSetIsWhollySimilarToItself(@ForAll @Size(min = 1, max = 60) Set<Long> a) {
    long[] x = sorted(a);
    assertThat(Jaccard.exact(x, x.clone())).isEqualTo(1.0);
  }

  @Property
  void identicalSetsHaveIdenticalSignaturesWhateverTheOrderAndRepeats(
      @ForAll @Size(min = 1, max = 60) Set<Long> a, @ForAll long seed) {
    MinHasher hasher = new MinHasher(64, seed);
    long[] x = sorted(a);
    long[] shuffled = new long[2 * x.length];
    for (int i = 0; i < x.length; i++) {
      shuffled[i] = x[x.length - 1 - i];
      shuffled[x.length + i] = x[i];
    }
    long[] s1 = new long[64];
    long[] s2 = new long[64];
    hasher.signature(x, s1);
    hasher.signature(shuffled, s2);
    assertThat(s1).isEqualTo(s2);
  }

  @Property
  void theMixerIsABijectionOnSamples(@ForAll long x, @ForAll long y) {
    if (x != y) {
      assertThat(MinHasher.mix(x)).isNotEqualTo(MinHasher.mix(y));
    }
  }

  private static long[] sorted(Set<Long> s) {
    long[] x = s.stream().mapToLong(Long::longValue).toArray();
    Arrays.sort(x);
    return x;
  }
}
