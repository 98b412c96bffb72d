package dev.idem.core.filter;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * The scalable filter against the contract, and its growth and slices. For the contract it starts
 * at an eighth of the keys, so that n keys fill four layers; its clock is fixed, so that two
 * filters fed the same keys have the same bytes.
 */
class ScalableBloomFilterTest extends MembershipFilterContract {

  @Override
  MembershipFilter create(long n, double p) {
    return ScalableBloomFilter.builder()
        .initialCapacity(Math.max(1, n / 8))
        .falsePositiveRate(p)
        .clock(() -> 1_700_000_000_000L)
        .build();
  }

  private static final double Z999 = 3.2905;

  /**
   * Eight filters, each grown to 100 × its initial capacity. The rate of one filter varies around
   * the theory (its small first layers vary most), beyond the sampling noise of the queries, so
   * theory and measurement are compared over several filters with 3 % allowed for that.
   */
  @Test
  void growingTo100TimesItsInitialCapacityKeepsTheCompoundBound() {
    long initial = 2_000;
    double bound = 0.01;
    SplittableRandom random = new SplittableRandom(21);
    long queries = 0;
    long falsePositives = 0;
    double theory = 0;
    int filters = 8;
    for (int t = 0; t < filters; t++) {
      ScalableBloomFilter f =
          ScalableBloomFilter.builder().initialCapacity(initial).falsePositiveRate(bound).build();
      long[] keys = new long[2 * 200_000]; // 100 × the initial capacity
      for (int i = 0; i < keys.length; i++) {
        keys[i] = random.nextLong();
      }
      for (int i = 0; i < keys.length; i += 2) {
        f.put(keys[i], keys[i + 1]);
      }
      for (int i = 0; i < keys.length; i += 2) {
        assertThat(f.mightContain(keys[i], keys[i + 1])).isTrue();
      }
      // capacities 2k, 4k, …: seven layers hold 254k ≥ 200k keys
      assertThat(f.layerCount()).isEqualTo(7);
      theory += f.expectedFpp() / filters;
      for (long i = 0; i < 500_000; i++, queries++) {
        falsePositives += f.mightContain(random.nextLong(), random.nextLong()) ? 1 : 0;
      }
    }
    double low = FppVerifier.wilson(falsePositives, queries, Z999, -1);
    double high = FppVerifier.wilson(falsePositives, queries, Z999, +1);
    assertThat(low).as("measured above the stated bound").isLessThanOrEqualTo(bound);
    assertThat(theory)
        .as("theory vs measured [%s, %s]", low, high)
        .isBetween(low * 0.97, high * 1.03)
        .isLessThanOrEqualTo(bound);
  }

  @Test
  void keySlicesDropTheOldestLayerAndReportIt() {
    List<ScalableBloomFilter.DroppedLayer> dropped = new ArrayList<>();
    ScalableBloomFilter f =
        ScalableBloomFilter.builder()
            .sliceEvery(1000)
            .maxLayers(3)
            .falsePositiveRate(0.001)
            .onLayerDropped(dropped::add)
            .build();
    for (long i = 0; i < 5000; i++) {
      f.put(i * 0x9E3779B97F4A7C15L, i);
    }
    // slices of 1000 keys: layers 0–4 were made, 0 and 1 dropped
    assertThat(f.layerCount()).isEqualTo(3);
    assertThat(f.droppedLayers()).isEqualTo(2);
    // a slice closes after 1000 changing puts; a false positive (≈ 0.03 %) is not one
    assertThat(dropped).hasSize(2).allMatch(d -> d.keys() == 1000 && d.layersLeft() == 3);
    assertThat(f.droppedKeys()).isEqualTo(2000);
    assertThat(f.approximateCount()).isBetween(2990L, 3000L);
    for (long i = 2000; i < 5000; i++) {
      assertThat(f.mightContain(i * 0x9E3779B97F4A7C15L, i)).isTrue();
    }
    long remembered = 0;
    for (long i = 0; i < 2000; i++) {
      remembered += f.mightContain(i * 0x9E3779B97F4A7C15L, i) ? 1 : 0;
    }
    assertThat(remembered).as("keys of dropped layers are forgotten").isLessThan(20);
  }

  @Test
  void withSlicesAKeySeenAgainIsRememberedFromItsLastSighting() {
    ScalableBloomFilter f = ScalableBloomFilter.builder().sliceEvery(100).maxLayers(2).build();
    assertThat(f.put(-1, -1)).isTrue();
    for (long i = 0; i < 150; i++) {
      f.put(i * 0x9E3779B97F4A7C15L, i); // second slice begins
    }
    assertThat(f.put(-1, -1)).as("seen in the first slice").isFalse();
    for (long i = 150; i < 250; i++) {
      f.put(i * 0x9E3779B97F4A7C15L, i); // third slice: the first is dropped
    }
    assertThat(f.droppedLayers()).isEqualTo(1);
    assertThat(f.mightContain(-1, -1)).as("refreshed into the second slice").isTrue();
  }

  @Test
  void timeSlicesFollowTheClock() {
    AtomicLong now = new AtomicLong(1_000_000);
    ScalableBloomFilter f =
        ScalableBloomFilter.builder()
            .initialCapacity(10_000)
            .sliceEvery(Duration.ofHours(24))
            .maxLayers(2)
            .clock(now::get)
            .build();
    f.put(1, 1);
    now.addAndGet(Duration.ofHours(23).toMillis());
    f.put(2, 2);
    assertThat(f.layerCount()).isEqualTo(1);
    now.addAndGet(Duration.ofHours(2).toMillis());
    f.put(3, 3); // a day has passed: new layer
    assertThat(f.layerCount()).isEqualTo(2);
    now.addAndGet(Duration.ofHours(25).toMillis());
    f.put(4, 4); // another day: a third layer, so the first one goes
    assertThat(f.layerCount()).isEqualTo(2);
    assertThat(f.droppedLayers()).isEqualTo(1);
    assertThat(f.droppedKeys()).isEqualTo(2);
    assertThat(f.mightContain(3, 3)).isTrue();
    assertThat(f.mightContain(4, 4)).isTrue();
  }

  @Test
  void aFullTimeSliceStartsTheNextOneEarlySoItsRateHolds() {
    AtomicLong now = new AtomicLong();
    ScalableBloomFilter f =
        ScalableBloomFilter.builder()
            .initialCapacity(100)
            .sliceEvery(Duration.ofHours(1))
            .clock(now::get)
            .build();
    for (long i = 0; i < 250; i++) {
      f.put(i, i * 31);
    }
    assertThat(f.layerCount()).isEqualTo(3);
  }

  @Test
  void misconfigurationsAreRefusedWithTheFix() {
    assertThatThrownBy(() -> ScalableBloomFilter.builder().build())
        .hasMessageContaining("initialCapacity");
    assertThatThrownBy(() -> ScalableBloomFilter.builder().initialCapacity(10).maxLayers(3).build())
        .hasMessageContaining("maxLayers needs slices");
    assertThatThrownBy(() -> ScalableBloomFilter.builder().tightening(1.0))
        .hasMessageContaining("between 0 and 1");
    assertThatThrownBy(() -> ScalableBloomFilter.builder().sliceEvery(Duration.ZERO))
        .hasMessageContaining("positive");
  }
}
