package dev.idem.engine.corpus;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.idem.core.KeyNormalizer;
import dev.idem.engine.neardup.TextNormalization;
import dev.idem.engine.neardup.Tokenizer;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.SplittableRandom;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.lifecycle.AfterTry;
import net.jqwik.api.lifecycle.BeforeTry;

/**
 * The exact modes against {@link CorpusReference} on generated corpora ({@link CorpusFixture}): the
 * output equals the reference's byte for byte, on one parsing thread and on several; every removed
 * unit is in {@code --dropped}; and {@code --annotate}'s spans, deleted from each text as a mixer
 * would, give the text written (or the document is dropped whole).
 */
class CorpusPropertiesTest {

  private Path dir;

  @BeforeTry
  void makeDirectory() throws IOException {
    dir = Files.createTempDirectory("idem-corpus-test");
  }

  @AfterTry
  void deleteDirectory() throws IOException {
    try (var files = Files.walk(dir)) {
      for (Path p : files.sorted(java.util.Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(p);
      }
    }
  }

  @Property(tries = 40)
  void paragraphDedupEqualsTheReferenceByteForByte(
      @ForAll long seed,
      @ForAll @IntRange(min = 1, max = 300) int docs,
      @ForAll boolean blankLines,
      @ForAll boolean normalize,
      @ForAll @IntRange(min = 0, max = 12) int minParagraphChars,
      @ForAll @IntRange(min = 0, max = 30) int minDocChars)
      throws IOException {
    CorpusSpec.Split split = blankLines ? CorpusSpec.Split.BLANK_LINE : CorpusSpec.Split.NEWLINE;
    List<CorpusFixture.Doc> corpus =
        CorpusFixture.generate(new SplittableRandom(seed), docs, split, List.of());
    Path in = CorpusFixture.write(dir, "in.jsonl", corpus);
    CorpusSpec.Builder b =
        CorpusSpec.builder(CorpusSpec.Mode.PARAGRAPHS, List.of(in.toString()), "text")
            .split(split)
            .minParagraphChars(minParagraphChars)
            .minDocChars(minDocChars)
            .paragraphNormalizer(
                normalize ? KeyNormalizer.parse("trim,lowercase") : KeyNormalizer.identity());
    List<CorpusReference.Decision> expected = CorpusReference.paragraphs(texts(corpus), b.build());
    checkAgainstReference(b, corpus, expected, minDocChars);
  }

  @Property(tries = 30)
  void ngramOverlapEqualsTheReferenceByteForByte(
      @ForAll long seed,
      @ForAll @IntRange(min = 1, max = 200) int docs,
      @ForAll boolean chars,
      @ForAll @IntRange(min = 1, max = 6) int n,
      @ForAll @IntRange(min = 1, max = 10) int threshold,
      @ForAll @IntRange(min = 0, max = 10) int documentThreshold,
      @ForAll boolean normalize)
      throws IOException {
    List<CorpusFixture.Doc> corpus =
        CorpusFixture.generate(
            new SplittableRandom(seed), docs, CorpusSpec.Split.NEWLINE, List.of());
    Path in = CorpusFixture.write(dir, "in.jsonl", corpus);
    CorpusSpec.Builder b =
        CorpusSpec.builder(CorpusSpec.Mode.NGRAMS, List.of(in.toString()), "text")
            .tokenizer(chars ? Tokenizer.CHARS : Tokenizer.WORDS)
            .ngram(chars ? 3 * n : n)
            .threshold(threshold / 10.0)
            .documentThreshold(documentThreshold / 10.0)
            .normalization(normalize ? TextNormalization.DEFAULT : TextNormalization.parse("none"));
    List<CorpusReference.Decision> expected = CorpusReference.ngrams(texts(corpus), b.build());
    checkAgainstReference(b, corpus, expected, 1);
  }

  @Property(tries = 30)
  void decontaminationEqualsTheReferenceByteForByte(
      @ForAll long seed,
      @ForAll @IntRange(min = 1, max = 200) int docs,
      @ForAll boolean paragraphs,
      @ForAll @IntRange(min = 2, max = 8) int n,
      @ForAll @IntRange(min = 0, max = 5) int threshold)
      throws IOException {
    SplittableRandom r = new SplittableRandom(seed);
    List<String> planted =
        List.of(
            CorpusFixture.words(r, 12),
            CorpusFixture.words(r, 20),
            "What is the capital of France? Paris.");
    List<CorpusFixture.Doc> corpus =
        CorpusFixture.generate(r, docs, CorpusSpec.Split.NEWLINE, planted);
    List<CorpusFixture.Doc> evals =
        List.of(
            CorpusFixture.record(r, 1, planted.get(0) + "\n" + planted.get(1)),
            CorpusFixture.record(r, 2, planted.get(2)),
            CorpusFixture.record(r, 3, "x"));
    Path in = CorpusFixture.write(dir, "in.jsonl", corpus);
    Path eval = CorpusFixture.write(dir, "eval.jsonl", evals);
    CorpusSpec.Builder b =
        CorpusSpec.builder(CorpusSpec.Mode.DECONTAMINATE, List.of(in.toString()), "text")
            .against(List.of(eval.toString()))
            .unit(paragraphs ? CorpusSpec.Unit.PARAGRAPH : CorpusSpec.Unit.DOCUMENT)
            .ngram(n)
            .threshold(threshold / 10.0);
    List<CorpusReference.Decision> expected =
        CorpusReference.decontaminate(texts(corpus), texts(evals), b.build());
    checkAgainstReference(b, corpus, expected, 1);
  }

  private static List<String> texts(List<CorpusFixture.Doc> docs) {
    return docs.stream().map(CorpusFixture.Doc::text).toList();
  }

  private void checkAgainstReference(
      CorpusSpec.Builder b,
      List<CorpusFixture.Doc> corpus,
      List<CorpusReference.Decision> expected,
      int minDocChars)
      throws IOException {
    byte[] want = CorpusFixture.expectedOutput(corpus, expected, minDocChars);
    Path out1 = dir.resolve("out-1.jsonl");
    Path dropped = dir.resolve("dropped.tsv");
    Path annotate = dir.resolve("attributes.jsonl");
    CorpusResult r =
        CorpusFixture.run(b.output(out1).dropped(dropped).annotate(annotate).threads(1).build());
    CorpusFixture.assertSameBytes(out1, want);
    Path out3 = dir.resolve("out-3.jsonl");
    CorpusFixture.run(b.output(out3).dropped(null).annotate(null).threads(3).build());
    CorpusFixture.assertSameBytes(out3, want);

    long removedParagraphs = 0;
    long whole = 0;
    long shortDocs = 0;
    for (CorpusReference.Decision d : expected) {
      if (d.wholeRemoved()) {
        whole++;
        continue;
      }
      for (boolean x : d.removed()) {
        removedParagraphs += x ? 1 : 0;
      }
      shortDocs += d.droppedShort(minDocChars) ? 1 : 0;
    }
    assertThat(r.documents()).isEqualTo(corpus.size());
    assertThat(r.removedParagraphs()).isEqualTo(removedParagraphs);
    assertThat(r.removedDocuments()).isEqualTo(whole);
    assertThat(r.shortDocuments()).isEqualTo(shortDocs);
    List<String> droppedLines = Files.readAllLines(dropped, StandardCharsets.UTF_8);
    assertThat(droppedLines.stream().filter(l -> l.split("\t")[2].equals("paragraph")).count())
        .isEqualTo(removedParagraphs);
    assertThat(droppedLines.stream().filter(l -> l.split("\t")[2].equals("document")).count())
        .isEqualTo(whole + shortDocs);

    List<String> attributes = Files.readAllLines(annotate, StandardCharsets.UTF_8);
    assertThat(attributes).hasSize(corpus.size());
    String name = RemovalWriter.attributeName(b.build().mode());
    for (int i = 0; i < corpus.size(); i++) {
      JsonNode line = CorpusFixture.JSON.readTree(attributes.get(i));
      assertThat(line.get("id").asInt()).isEqualTo(i);
      JsonNode spans = line.get("attributes").get(name);
      String text = corpus.get(i).text();
      CorpusReference.Decision d = expected.get(i);
      String after = CorpusFixture.applySpans(text, spans);
      if (d.written(minDocChars)) {
        assertThat(after).as("document %d", i).isEqualTo(d.left());
      } else {
        assertThat(after).as("document %d is removed whole", i).isEmpty();
      }
    }
  }
}
