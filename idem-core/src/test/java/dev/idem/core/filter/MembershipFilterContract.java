package dev.idem.core.filter;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.idem.core.Fingerprint;
import dev.idem.core.Fingerprinter;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.stream.Stream;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Tuple;
import net.jqwik.api.constraints.IntRange;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.io.TempDir;

/**
 * What every {@link MembershipFilter} promises (invariants 1, 2 and 5 of docs/DESIGN.md), run
 * against each implementation by a subclass that says how to build it ({@link #create}):
 *
 * <ul>
 *   <li>no false negatives, ever (the promise of {@link MembershipFilter}), and {@code put} reports
 *       a change exactly when the filter answered "certainly new" just before (jqwik properties,
 *       keys biased toward small values: fingerprints are uniform, but the code must not depend on
 *       it);
 *   <li>the measured false-positive rate keeps the configured rate and matches the filter's own
 *       formula for its real layout (fixed seeds, tolerance {@link #SIGMAS});
 *   <li>a snapshot round trip, through a file read or mapped and through a byte array, keeps every
 *       answer and writes back the same bytes;
 *   <li>the batch operations are the single ones repeated: same "changed" flags, same answers, same
 *       bits; prefetching changes nothing.
 * </ul>
 */
abstract class MembershipFilterContract {

  /**
   * Tolerance of the rate checks, in standard deviations of the binomial count of false positives:
   * wide enough that every case of every type passes together whatever the seed (beyond 4σ: about
   * 6·10⁻⁵ per check), narrow enough to catch a rate off by ten percent at the default sizes, let
   * alone the tenfold error a weak hash once showed on 10 M URLs.
   */
  static final double SIGMAS = 4;

  private static final Fingerprinter FP = Fingerprinter.xxh3().withSeed(7);

  @TempDir Path dir;

  /** A new, empty filter for {@code n} keys at rate {@code p}, built as the type is normally. */
  abstract MembershipFilter create(long n, double p);

  /** True for a type of fixed capacity, whose puts may throw {@link FilterFullException}. */
  boolean mayBecomeFull() {
    return false;
  }

  /** Sizes at which to measure the rate: insert n keys, query as many fresh ones per trial. */
  record RateCase(long n, double p, int trials) {}

  List<RateCase> rateCases() {
    return List.of(new RateCase(20_000, 0.01, 5));
  }

  /**
   * A filter with content for the snapshot round trip; types whose format has optional parts
   * (layers, a stash) override it to fill them.
   */
  MembershipFilter filledForSnapshot(SplittableRandom random) {
    MembershipFilter f = create(3000, 0.01);
    for (int i = 0; i < 3000; i++) {
      f.put(random.nextLong(), random.nextLong());
    }
    if (f instanceof DeletableFilter d) {
      d.remove(random.nextLong(), random.nextLong());
    }
    return f;
  }

  @Provide
  Arbitrary<List<Fingerprint>> keys() {
    Arbitrary<Long> any = Arbitraries.longs();
    Arbitrary<Long> small = Arbitraries.longs().between(-3, 3);
    Arbitrary<Long> part = Arbitraries.frequencyOf(Tuple.of(9, any), Tuple.of(1, small));
    return Combinators.combine(part, part).as(Fingerprint::new).list().ofMaxSize(3000);
  }

  @Property(tries = 40)
  void noFalseNegatives(
      @ForAll("keys") List<Fingerprint> keys, @ForAll @IntRange(min = 1, max = 5000) int capacity) {
    MembershipFilter filter = create(capacity, 0.01);
    List<Fingerprint> stored = new ArrayList<>();
    for (Fingerprint k : keys) {
      try {
        filter.put(k);
        stored.add(k);
      } catch (FilterFullException e) {
        assertThat(mayBecomeFull()).as("%s is not of fixed capacity", filter.type()).isTrue();
      }
    }
    for (Fingerprint k : stored) {
      assertThat(filter.mightContain(k)).as("%s after put", k).isTrue();
    }
  }

  @Property(tries = 40)
  void putReportsAChangeExactlyForKeysItCalledNew(@ForAll("keys") List<Fingerprint> keys) {
    MembershipFilter filter = create(4000, 0.01);
    Set<Fingerprint> seen = new HashSet<>();
    long changed = 0;
    for (Fingerprint k : keys) {
      boolean wasMaybe = filter.mightContain(k);
      boolean didChange = filter.put(k);
      assertThat(didChange).as("changed ⇔ the filter answered certainly new").isEqualTo(!wasMaybe);
      if (didChange) {
        assertThat(seen).as("a changing put means a new key").doesNotContain(k);
        changed++;
      }
      seen.add(k);
      assertThat(filter.put(k)).as("second put of %s", k).isFalse();
    }
    assertThat(filter.approximateCount()).isEqualTo(changed);
  }

  @Property(tries = 40)
  void putAllIsPutRepeated(
      @ForAll("keys") List<Fingerprint> keys, @ForAll @IntRange(min = 1, max = 400) int batch) {
    MembershipFilter single = create(4000, 0.05);
    MembershipFilter batched = create(4000, 0.05);
    long[] pairs = pairs(keys);
    int half = keys.size() / 2; // the other half stays fresh for the queries
    boolean[] changed = new boolean[keys.size()];
    for (int from = 0; from < half; from += batch) {
      batched.putAll(pairs, from, Math.min(half, from + batch), changed);
    }
    for (int i = 0; i < half; i++) {
      assertThat(changed[i]).as("changed flag of key %d", i).isEqualTo(single.put(keys.get(i)));
    }
    boolean[] answers = new boolean[keys.size()];
    for (int from = 0; from < keys.size(); from += batch) {
      batched.mightContainAll(pairs, from, Math.min(keys.size(), from + batch), answers);
    }
    for (int i = 0; i < keys.size(); i++) {
      assertThat(answers[i]).as("answer for key %d", i).isEqualTo(single.mightContain(keys.get(i)));
    }
    assertThat(batched.approximateCount()).isEqualTo(single.approximateCount());
    if (single instanceof SnapshotSupport) { // the same bits, parameters and count
      assertThat(FilterSnapshot.toBytes(batched, FP)).isEqualTo(FilterSnapshot.toBytes(single, FP));
    }
  }

  @Property(tries = 25)
  void prefetchChangesNoAnswer(@ForAll("keys") List<Fingerprint> keys) {
    MembershipFilter plain = create(4000, 0.05);
    MembershipFilter hinted = create(4000, 0.05);
    long[] pairs = pairs(keys);
    for (int i = 0; i < keys.size(); i++) {
      if (i % 7 == 0) {
        hinted.prefetch(pairs, i, Math.min(keys.size(), i + 7));
      }
      Fingerprint k = keys.get(i);
      assertThat(hinted.mightContain(k)).isEqualTo(plain.mightContain(k));
      if (i % 3 != 0) {
        assertThat(hinted.put(k)).isEqualTo(plain.put(k));
      }
    }
    assertThat(hinted.approximateCount()).isEqualTo(plain.approximateCount());
  }

  /**
   * Per case: {@code n} sequential URL-like keys into a filter for {@code n} at {@code p}, then
   * {@code n} fresh ones queried, per trial ({@link FppVerifier}, seeded). With X false positives
   * among M queries, X must lie within {@link #SIGMAS} binomial standard deviations of M·q, q the
   * filter's own formula for its real state (measured and stated rate agree), and must not exceed
   * M·p by more than that (the configured rate holds).
   */
  @TestFactory
  Stream<DynamicTest> measuredRateKeepsTheConfiguredRateAndMatchesTheFormula() {
    return rateCases().stream()
        .map(
            c ->
                DynamicTest.dynamicTest(
                    String.format(Locale.ROOT, "n=%d p=%s trials=%d", c.n(), c.p(), c.trials()),
                    () -> {
                      FppVerifier.Report r =
                          FppVerifier.verify(
                              () -> create(c.n(), c.p()), c.n(), c.p(), c.trials(), 1234);
                      long m = r.queries();
                      long x = r.falsePositives();
                      double q = r.expectedFpp();
                      String what =
                          String.format(
                              Locale.ROOT,
                              "%s: %d false positives in %d queries "
                                  + "(%.6f), formula %.6f, target %s",
                              r.type(),
                              x,
                              m,
                              r.measuredFpp(),
                              q,
                              c.p());
                      assertThat(Math.abs(x - m * q))
                          .as("%s: measured vs formula", what)
                          .isLessThanOrEqualTo(SIGMAS * Math.sqrt(m * q * (1 - q)));
                      assertThat((double) x)
                          .as("%s: measured vs target", what)
                          .isLessThanOrEqualTo(
                              m * c.p() + SIGMAS * Math.sqrt(m * c.p() * (1 - c.p())));
                    }));
  }

  @Test
  void snapshotRoundTripKeepsEveryAnswerInEveryCarrier() throws IOException {
    MembershipFilter original = filledForSnapshot(new SplittableRandom(42));
    assumeTrue(original instanceof SnapshotSupport, original.type() + " has no snapshot form");
    byte[] bytes = FilterSnapshot.toBytes(original, FP);
    Path file = dir.resolve("filter.idx");
    FilterSnapshot.write(file, original, FP);
    assertThat(Files.readAllBytes(file)).as("a file holds the bytes of toBytes").isEqualTo(bytes);
    // the same generator as the fill: the inserted keys first, then fresh ones
    SplittableRandom replay = new SplittableRandom(42);
    long[] probes = new long[2 * 23_000];
    for (int i = 0; i < probes.length; i++) {
      probes[i] = replay.nextLong();
    }
    for (FilterSnapshot s :
        List.of(
            FilterSnapshot.read(file), FilterSnapshot.map(file), FilterSnapshot.fromBytes(bytes))) {
      String how = original.type() + " via " + (s.file() == null ? "bytes" : s.loadMode());
      MembershipFilter loaded = s.filter();
      assertThat(s.fingerprinter()).isEqualTo(FP);
      assertThat(s.formatVersion()).isEqualTo(FilterSnapshot.FORMAT_VERSION);
      if (s.file() == null) {
        assertThat(s.loadMode()).isEqualTo(FilterSnapshot.LoadMode.HEAP);
      }
      assertThat(loaded.getClass()).isEqualTo(original.getClass());
      assertThat(loaded.layout()).as(how).isEqualTo(original.layout());
      assertThat(loaded.approximateCount()).as(how).isEqualTo(original.approximateCount());
      assertThat(loaded.bitSize()).as(how).isEqualTo(original.bitSize());
      assertThat(loaded.capacity()).as(how).isEqualTo(original.capacity());
      assertThat(loaded.expectedFpp()).as(how).isEqualTo(original.expectedFpp());
      for (int i = 0; i < probes.length; i += 2) {
        if (loaded.mightContain(probes[i], probes[i + 1])
            != original.mightContain(probes[i], probes[i + 1])) {
          fail("%s answers probe %d otherwise than the original", how, i / 2);
        }
      }
      assertThat(FilterSnapshot.toBytes(loaded, FP)).as("%s written again", how).isEqualTo(bytes);
      // the loaded filter keeps working (unless it was saved full)
      boolean fresh = !loaded.mightContain(-7, -7);
      try {
        assertThat(loaded.put(-7, -7)).as(how).isEqualTo(fresh);
        assertThat(loaded.mightContain(-7, -7)).as(how).isTrue();
      } catch (FilterFullException e) {
        assertThat(mayBecomeFull()).as("%s: %s", how, e.getMessage()).isTrue();
      }
    }
  }

  private static long[] pairs(List<Fingerprint> keys) {
    long[] pairs = new long[2 * keys.size()];
    for (int i = 0; i < keys.size(); i++) {
      pairs[2 * i] = keys.get(i).hi();
      pairs[2 * i + 1] = keys.get(i).lo();
    }
    return pairs;
  }
}
