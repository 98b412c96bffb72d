package dev.idem.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.BitSet;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The near-dup truth, recomputed from the written text, and how contenders' results are read. */
class NearDupTruthTest {

  @TempDir Path dir;

  private static long[] shinglesOfText(String text) {
    String[] w = text.split(" ");
    long[] h = new long[w.length - 4];
    for (int i = 0; i < h.length; i++) {
      String gram = String.join(" ", Arrays.copyOfRange(w, i, i + 5));
      h[i] = dev.idem.core.Fingerprinter.xxh3().fingerprint(gram).hi();
    }
    return Arrays.stream(h).sorted().distinct().toArray();
  }

  @Test
  void everyPlantedPairsJaccardIsTheExactOneOfItsTexts() throws Exception {
    Path file = dir.resolve("corpus.jsonl");
    NearDupCorpus corpus = NearDupCorpus.write(file, 3000, 7);
    List<String> lines = Files.readAllLines(file, StandardCharsets.UTF_8);
    ObjectMapper json = new ObjectMapper();
    assertThat(lines).hasSize(3000);
    assertThat(corpus.familyPairs).isNotEmpty();
    for (NearDupCorpus.Pair p : corpus.familyPairs) {
      long[] a = shinglesOfText(json.readTree(lines.get(p.a())).get("text").asText());
      long[] b = shinglesOfText(json.readTree(lines.get(p.b())).get("text").asText());
      assertThat(Stats.jaccard(a, b)).as("pair %s", p).isCloseTo(p.jaccard(), within(1e-9));
    }
    BitSet truth = corpus.removedAt(0.8);
    for (NearDupCorpus.Pair p : corpus.familyPairs) {
      if (p.jaccard() >= 0.8) {
        assertThat(truth.get(p.b())).isTrue(); // the later one of a similar pair goes
      }
    }
    assertThat(truth.cardinality()).isPositive().isLessThan(corpus.familyPairs.size() + 1);
  }

  @Test
  void theIdealRecallFollowsTheSCurve() throws Exception {
    NearDupCorpus corpus = NearDupCorpus.write(dir.resolve("c.jsonl"), 3000, 7);
    BitSet truth = corpus.removedAt(NearDupScenario.THRESHOLD);
    // zero rows: every pair is a candidate, so the ideal finds everything
    assertThat(NearDupScenario.idealRecall(corpus, truth, 1, 0)).containsOnly(1.0);
    double strict = Stats.median(NearDupScenario.idealRecall(corpus, truth, 1, 64));
    double datatrove = Stats.median(NearDupScenario.idealRecall(corpus, truth, 14, 8));
    assertThat(strict).isLessThan(0.5);
    assertThat(datatrove).isGreaterThan(0.95).isLessThanOrEqualTo(1.0);
  }

  @Test
  void removedDocumentsAreReadFromIdemsClustersAndFromPairs() throws Exception {
    Path clusters = dir.resolve("clusters.tsv");
    Files.writeString(clusters, "document\tcluster\n0\t0\n1\t1\n2\t0\n3\t1\n4\t4\n");
    assertThat(NearDupScenario.removed("idem-14x8", clusters, 5).stream().toArray())
        .containsExactly(2, 3);
    Path pairs = dir.resolve("pairs.tsv");
    Files.writeString(pairs, "3\t4\n0\t3\n1\t2\n");
    assertThat(NearDupScenario.removed("java-lsh", pairs, 5).stream().toArray())
        .containsExactly(2, 3, 4);
  }
}
