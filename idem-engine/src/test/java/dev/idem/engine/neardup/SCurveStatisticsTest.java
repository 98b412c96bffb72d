package dev.idem.engine.neardup;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.SplittableRandom;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Pairs at similarity s become LSH candidates with the S-curve's probability 1 − (1 − s^R)^B:
 * thousands of planted pairs per point, the observed rate inside its Wilson interval at 4.5
 * standard deviations. Candidates are found through {@link BandIndex} itself (its keys and its
 * tables), not by a second implementation of banding.
 */
class SCurveStatisticsTest {

  private static final int PAIRS = 3000;

  @ParameterizedTest
  @CsvSource({
    "9, 13, 0.5",
    "9, 13, 0.7",
    "9, 13, 0.8",
    "9, 13, 0.9",
    "20, 5, 0.4",
    "20, 5, 0.6",
    "14, 8, 0.75",
    "1, 1, 0.5"
  })
  void candidatesFollowTheSCurve(int b, int r, double s) {
    LshBands bands = new LshBands(b, r);
    SplittableRandom random = new SplittableRandom(31L * b + r + Double.doubleToLongBits(s));
    MinHasher hasher = new MinHasher(bands.components(), 99);
    double sumProbability = 0;
    int candidates = 0;
    for (int p = 0; p < PAIRS; p++) {
      PlantedPairs pair = PlantedPairs.draw(random, s, 200);
      sumProbability += bands.probability(pair.jaccard());
      // a one-pair clustering that accepts every candidate: it counts whether B met A in a band
      Clustering c = new Clustering(hasher, bands, 0, true);
      c.addDocument(pair.a());
      c.addDocument(pair.b());
      candidates += (int) c.candidatePairs();
    }
    double expected = sumProbability / PAIRS;
    double[] ci = PlantedPairs.wilson(candidates, PAIRS, 4.5);
    assertThat(expected)
        .as("P(candidate | s=%s) for %d × %d, observed %d / %d", s, b, r, candidates, PAIRS)
        .isBetween(ci[0], ci[1]);
  }
}
