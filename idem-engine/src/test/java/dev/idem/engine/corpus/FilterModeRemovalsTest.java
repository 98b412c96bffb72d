package dev.idem.engine.corpus;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.SplittableRandom;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The filter modes ({@code --fpp}) against the exact mode on the same corpus: the filter removes
 * every unit the exact run removes (a false positive can only call a new unit seen, and a filter
 * never forgets), and the units it removes beyond those number no more than the bound the job
 * states allows ({@link CorpusResult#unitRateBound()} × units judged, the expectation) — within a
 * wide interval around that expectation (4 standard deviations of a Poisson count, plus 4), so a
 * filter whose real rate were above its stated one would fail here. Rates are high (5 % to 20 %) so
 * that the extra removals are many and the test has power.
 */
class FilterModeRemovalsTest {

  @TempDir Path dir;

  @ParameterizedTest(name = "{0}, --fpp {1}, expected {2}")
  @CsvSource({
    "PARAGRAPHS, 0.05, 0",
    "PARAGRAPHS, 0.2, 0",
    "PARAGRAPHS, 0.05, 20000",
    "NGRAMS, 0.2, 0",
    "NGRAMS, 0.1, 200000"
  })
  void theFilterRemovesWhatTheExactRunRemovesAndNoMoreThanItsRateAllowsBeyond(
      CorpusSpec.Mode mode, double fpp, long expected) throws IOException {
    Path in =
        CorpusFixture.write(
            dir,
            "in.jsonl",
            CorpusFixture.generate(
                new SplittableRandom(11), 2_500, CorpusSpec.Split.NEWLINE, List.of()));
    CorpusSpec.Builder b = CorpusSpec.builder(mode, List.of(in.toString()), "text");
    if (mode == CorpusSpec.Mode.NGRAMS) {
      b.ngram(3).threshold(0.5);
    }
    Path exactDropped = dir.resolve("exact.tsv");
    CorpusFixture.run(b.output(dir.resolve("exact.jsonl")).dropped(exactDropped).build());
    Path filterDropped = dir.resolve("filter.tsv");
    CorpusResult f =
        CorpusFixture.run(
            b.output(dir.resolve("filter.jsonl"))
                .dropped(filterDropped)
                .fpp(fpp)
                .expected(expected)
                .build());

    Set<String> exact = removedParagraphs(exactDropped);
    Set<String> filter = removedParagraphs(filterDropped);
    assertThat(exact).as("paragraphs the exact run removes").isNotEmpty();
    assertThat(filter).as("the filter removes all the exact run removes").containsAll(exact);
    long extra = filter.size() - exact.size();
    double mean = f.unitRateBound() * f.judgedParagraphs();
    assertThat(f.expectedRate()).isPositive().isLessThanOrEqualTo(fpp);
    assertThat((double) extra)
        .as(
            "removals beyond the exact run's (%d units judged, stated bound %.4g a unit)",
            f.judgedParagraphs(), f.unitRateBound())
        .isLessThanOrEqualTo(mean + 4 * Math.sqrt(mean) + 4);
  }

  /** The removed paragraphs of a {@code --dropped} file, by line and start. */
  private static Set<String> removedParagraphs(Path dropped) throws IOException {
    Set<String> s = new HashSet<>();
    for (String line : Files.readAllLines(dropped, StandardCharsets.UTF_8)) {
      String[] f = line.split("\t");
      if (f[2].equals("paragraph")) {
        s.add(f[1] + ":" + f[3]);
      }
    }
    return s;
  }
}
