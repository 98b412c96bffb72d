package dev.idem.engine.neardup;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.DoubleRange;
import net.jqwik.api.constraints.IntRange;

/**
 * The clustering against a brute force: every pair of documents, its band keys compared directly,
 * its exact Jaccard, a union-find over the accepted pairs in any order.
 */
class ClusteringPropertiesTest {

  @Property(tries = 60)
  void clustersAreTheComponentsOfTheAcceptedCandidatePairsAndTheFirstSurvives(
      @ForAll long seed,
      @ForAll @IntRange(min = 2, max = 60) int documents,
      @ForAll @DoubleRange(min = 0.3, max = 0.95) double threshold,
      @ForAll boolean verify) {
    SplittableRandom random = new SplittableRandom(seed);
    LshBands bands = new LshBands(8, 4);
    MinHasher hasher = new MinHasher(32, seed);
    List<long[]> docs = new ArrayList<>();
    for (int i = 0; i < documents; i++) {
      // a document is a fresh set, or an edit of an earlier one: clusters and chains appear
      if (i == 0 || random.nextInt(3) == 0) {
        docs.add(PlantedPairs.draw(random, 0, 40).a());
      } else {
        long[] base = docs.get(random.nextInt(i));
        docs.add(edit(base, random));
      }
    }
    Clustering c = new Clustering(hasher, bands, threshold, verify);
    docs.forEach(c::addDocument);

    UnionFind expected = new UnionFind();
    long[][] sigs = new long[documents][32];
    BandIndex keys = new BandIndex(bands, JudgingMemory.unlimited());
    for (int i = 0; i < documents; i++) {
      expected.add();
      hasher.signature(docs.get(i), sigs[i]);
    }
    long candidates = 0;
    for (int j = documents - 1; j >= 0; j--) { // the other order, to show order does not matter
      for (int i = j - 1; i >= 0; i--) {
        boolean candidate = false;
        for (int b = 0; b < bands.bands(); b++) {
          candidate |= keys.key(sigs[i], b) == keys.key(sigs[j], b);
        }
        if (!candidate) {
          continue;
        }
        candidates++;
        double s = verify ? Jaccard.exact(docs.get(i), docs.get(j)) : estimate(sigs[i], sigs[j]);
        if (s >= threshold) {
          expected.union(i, j);
        }
      }
    }
    assertThat(c.candidatePairs()).isEqualTo(candidates);
    for (int i = 0; i < documents; i++) {
      assertThat(c.survivor(i)).isEqualTo(expected.find(i)).isLessThanOrEqualTo(i);
    }
  }

  /**
   * Past its memory budget a clustering keeps signatures, shingles and band entries in RocksDB:
   * from whichever document the budget runs out at, it decides exactly as one that holds all.
   */
  @Property(tries = 25)
  void spillingToDiskChangesNoDecision(
      @ForAll long seed,
      @ForAll @IntRange(min = 2, max = 80) int documents,
      @ForAll @IntRange(min = 0, max = 80) int documentsInMemory,
      @ForAll boolean verify)
      throws Exception {
    SplittableRandom random = new SplittableRandom(seed);
    List<long[]> docs = new ArrayList<>();
    for (int i = 0; i < documents; i++) {
      docs.add(
          i == 0 || random.nextInt(3) == 0
              ? PlantedPairs.draw(random, 0, 40).a()
              : edit(docs.get(random.nextInt(i)), random));
    }
    LshBands bands = new LshBands(8, 4);
    Clustering all = new Clustering(new MinHasher(32, seed), bands, 0.6, verify);
    // a budget that the first documentsInMemory documents fill, about
    long perDocument =
        4 * 32
            + NearDupPlan.BAND_ENTRY * 8
            + NearDupPlan.fixedBytesPerDocument()
            + (verify ? 300 : 0);
    Path tmp = Files.createTempDirectory("idem-spill-test");
    List<String> warnings = new ArrayList<>();
    try (Clustering spilled =
        new Clustering(
            new MinHasher(32, seed),
            bands,
            0.6,
            verify,
            new JudgingMemory(documentsInMemory * perDocument, tmp, warnings::add))) {
      for (long[] d : docs) {
        all.addDocument(d);
        spilled.addDocument(d);
      }
      if (documentsInMemory < documents / 2) {
        assertThat(spilled.spilledDocuments()).isPositive();
      }
      assertThat(spilled.candidatePairs()).isEqualTo(all.candidatePairs());
      assertThat(spilled.comparedPairs()).isEqualTo(all.comparedPairs());
      assertThat(spilled.acceptedPairs()).isEqualTo(all.acceptedPairs());
      for (int i = 0; i < documents; i++) {
        assertThat(spilled.survivor(i)).isEqualTo(all.survivor(i));
        assertThat(spilled.similarityToSurvivor(i)).isEqualTo(all.similarityToSurvivor(i));
      }
    } finally {
      assertThat(warnings).isEmpty();
      try (var left = Files.list(tmp)) {
        assertThat(left).as("the spill tables are deleted on close").isEmpty();
      }
      Files.delete(tmp);
    }
  }

  private static double estimate(long[] a, long[] b) {
    int equal = 0;
    for (int i = 0; i < a.length; i++) {
      equal += (int) (a[i] >>> 32) == (int) (b[i] >>> 32) ? 1 : 0;
    }
    return (double) equal / a.length;
  }

  private static long[] edit(long[] base, SplittableRandom random) {
    long[] copy = base.clone();
    int changes = random.nextInt(1 + copy.length / 3);
    for (int k = 0; k < changes; k++) {
      copy[random.nextInt(copy.length)] = random.nextLong();
    }
    java.util.Arrays.sort(copy);
    return Shingler.distinct(copy);
  }
}
