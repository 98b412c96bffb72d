package dev.idem.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * {@code idem dedup --unit} and {@code idem decontaminate} as a user meets them: what they write
 * and say on a small corpus, {@code --stats-json}, and a one-line message naming the option, or the
 * file and line, for each mistake (status 2 for usage, 1 for bad input), never a stack trace.
 */
class CorpusCommandTest {

  @TempDir Path dir;

  private Path corpus() throws IOException {
    Path in = dir.resolve("corpus.jsonl");
    Files.writeString(
        in,
        String.join(
            "\n",
            "{\"id\":0,\"text\":\"Own words of the first page.\\nAccept cookies to go on.\","
                + "\"meta\":{\"k\":[1, 2]}}",
            "{\"id\":1,\"text\":\"Accept cookies to go on.\\nOwn words of page two.\"}",
            "{\"id\":2, \"text\" : \"Accept cookies to go on.\"}",
            "{\"id\":3,\"text\":\"the quick brown fox jumps over the lazy dog again and again\"}",
            ""),
        StandardCharsets.UTF_8);
    return in;
  }

  @Test
  void paragraphDedupRewritesOnlyTheContentFieldAndSaysWhatItDid() throws IOException {
    Path in = corpus();
    Path out = dir.resolve("out.jsonl");
    Path stats = dir.resolve("stats.json");
    Cli.Result r =
        Cli.run(
            "dedup",
            "--content",
            "text",
            "--unit",
            "paragraph",
            "--dropped",
            dir.resolve("removed.tsv").toString(),
            "--stats-json",
            stats.toString(),
            "-o",
            out.toString(),
            in.toString());
    assertThat(r.status()).as(r.err()).isZero();
    assertThat(Files.readAllLines(out, StandardCharsets.UTF_8))
        .containsExactly(
            "{\"id\":0,\"text\":\"Own words of the first page.\\nAccept cookies to go on.\","
                + "\"meta\":{\"k\":[1, 2]}}",
            "{\"id\":1,\"text\":\"Own words of page two.\"}",
            "{\"id\":3,\"text\":\"the quick brown fox jumps over the lazy dog again and again\"}");
    assertThat(r.err())
        .contains("idem dedup: 4 documents, 3 kept (1 of them with paragraphs removed)")
        .contains("1 dropped as too short");
    assertThat(Files.readString(dir.resolve("removed.tsv")))
        .startsWith(in + "\t2\tparagraph\t0\t25\t1.0\t\"Accept cookies to go on.\"\n");
    JsonNode s = new ObjectMapper().readTree(stats.toFile());
    assertThat(s.get("removed_paragraphs").asLong()).isEqualTo(2);
    assertThat(s.get("short_documents").asLong()).isEqualTo(1);
    assertThat(s.get("expected_fpp").asDouble()).isZero();
  }

  @Test
  void decontaminationRemovesTheDocumentHoldingAnEvaluationNgram() throws IOException {
    Path in = corpus();
    Path evals = dir.resolve("evals.jsonl");
    Files.writeString(evals, "{\"q\":\"Is it: the quick brown fox jumps over the lazy dog?\"}\n");
    Cli.Result r =
        Cli.run(
            "decontaminate",
            "--against",
            evals.toString(),
            "--against-content",
            "q",
            "--content",
            "text",
            "--ngram",
            "5",
            "-q",
            in.toString());
    assertThat(r.status()).as(r.err()).isZero();
    assertThat(r.out()).hasLineCount(3).doesNotContain("quick brown fox");
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource(
      delimiter = '|',
      quoteCharacter = '"',
      value = {
        "--unit paragraph --key id | give their text as --content FIELD",
        "--content text --ngram 5 | --ngram applies to corpus cleaning: give --unit",
        "--content text --unit paragraph --threshold 0.5 | --threshold applies to n-grams",
        "--content text --unit paragraph --document-threshold 0.5 | give --unit ngram",
        "--content text --unit ngram --threshold 2 | '2' is not a share from 0 to 1",
        "--content text --unit sentence | 'sentence' is not paragraph or ngram",
        "--content text --unit paragraph --window 1m | --window does not apply with --unit",
        "--content text --unit paragraph --expected 1000 | --expected sizes a Bloom filter",
        "--content text --unit paragraph --split tabs | 'tabs' is not newline",
        "--content text --unit paragraph --state st | --state needs -o FILE"
      })
  void aMistakeIsAUsageErrorNamingTheOption(String options, String message) throws IOException {
    Path in = corpus();
    List<String> args = new java.util.ArrayList<>(List.of("dedup"));
    args.addAll(List.of(options.strip().split(" ")));
    args.add(in.toString());
    Cli.Result r = Cli.run(args.toArray(String[]::new));
    assertThat(r.status()).as(r.err()).isEqualTo(2);
    assertThat(r.err()).contains(message).doesNotContain("Exception").hasLineCount(1);
  }

  /** A filter sized too small is a run that failed (exit 1), not a command that was wrong. */
  @Test
  void aFilterFullerThanItsRateStopsTheRunWithStatusOne() throws IOException {
    Path in = dir.resolve("many.jsonl");
    StringBuilder b = new StringBuilder();
    for (int i = 0; i < 2_000; i++) {
      b.append("{\"text\":\"paragraph ").append(i).append(" of a corpus too large\"}\n");
    }
    Files.writeString(in, b.toString(), StandardCharsets.UTF_8);
    Path out = dir.resolve("out.jsonl");
    Cli.Result r =
        Cli.run(
            ("dedup --content text --unit paragraph --fpp 0.01 --expected 10 -q -o "
                    + out
                    + " "
                    + in)
                .split(" "));
    assertThat(r.status()).as(r.err()).isEqualTo(1);
    assertThat(r.err())
        .startsWith("idem: the Bloom filter sized for 10 paragraphs")
        .contains("Stopped.", "--expected of at least")
        .doesNotContain("Exception")
        .hasLineCount(1);
  }

  @Test
  void aBadRecordIsNamedByFileAndLine() throws IOException {
    Path in = dir.resolve("bad.jsonl");
    Files.writeString(in, "{\"text\":\"a\"}\n{\"text\":5}\n");
    Cli.Result r =
        Cli.run("dedup", "--content", "text", "--unit", "paragraph", "-q", in.toString());
    assertThat(r.status()).isEqualTo(1);
    assertThat(r.err())
        .isEqualTo(
            "idem: "
                + in
                + ":2: content field /text is not a string; rerun with --on-bad-record skip or "
                + "quarantine=FILE to go past it"
                + System.lineSeparator());
    Path evals = dir.resolve("evals.jsonl");
    Files.writeString(evals, "not json\n");
    Cli.Result e =
        Cli.run(
            "decontaminate",
            "--against",
            evals.toString(),
            "--content",
            "text",
            "-q",
            dir.resolve("bad.jsonl").toString());
    assertThat(e.status()).isEqualTo(2);
    assertThat(e.err()).startsWith("idem decontaminate: evaluation set " + evals + ":1: ");
  }

  @Test
  void helpShowsExamples() {
    assertThat(Cli.run("dedup", "--help").out()).contains("idem dedup --content text --unit ngram");
    assertThat(Cli.run("decontaminate", "--help").out())
        .contains("Examples:")
        .contains("idem decontaminate --against 'evals/*.jsonl' --content text");
  }
}
