package dev.idem.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.zip.GZIPOutputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** idem dedup on small inputs: formats, keys, outputs, statistics. */
class DedupCommandTest {

  @TempDir Path dir;

  private Path write(String name, String content) throws IOException {
    Path p = dir.resolve(name);
    Files.writeString(p, content);
    return p;
  }

  private String read(Path p) throws IOException {
    return Files.readString(p);
  }

  @ParameterizedTest
  @ValueSource(strings = {"auto", "memory", "rocksdb"})
  void keepsTheFirstRecordOfEachKeyInInputOrder(String store) throws IOException {
    Path in =
        write(
            "in.jsonl",
            """
        {"id":"a","v":1}
        {"id":"b","v":2}
        {"id":"a","v":3}
        {"v":4,"id":"c"}
        {"id":"b","v":5}
        """);
    Cli.Result r = Cli.run("dedup", "--key", "id", "--exact-store", store, in.toString());
    assertThat(r.status()).as(r.err()).isZero();
    assertThat(r.out())
        .isEqualTo("{\"id\":\"a\",\"v\":1}\n{\"id\":\"b\",\"v\":2}\n" + "{\"v\":4,\"id\":\"c\"}\n");
    assertThat(r.err())
        .contains("5 records, 3 kept")
        .contains("2 duplicates removed")
        .contains("exact tier " + (store.equals("auto") ? "memory" : store));
    if (store.equals("rocksdb")) {
      assertThat(r.err())
          .contains(
              "rocksdb (block cache "
                  + dev.idem.core.ByteSize.format(
                      CacheSizeConverter.resolve(CacheSizeConverter.AUTO))
                  + ")");
    }
  }

  @Test
  void aCarriageReturnBeforeTheLineEndIsNotPartOfTheKeyForDedupAndSortDedupAlike()
      throws IOException {
    Path in = dir.resolve("crlf.txt");
    Files.writeString(in, "a\r\nb\na\nb\r\n");
    Cli.Result dedup = Cli.run("dedup", "--whole-line", "-q", in.toString());
    Cli.Result sorted =
        Cli.run("sort-dedup", "--whole-line", "--exact-key", "--order", "key", "-q", in.toString());
    assertThat(dedup.out()).isEqualTo("a\r\nb\n");
    assertThat(sorted.out()).isEqualTo(dedup.out());
  }

  @Test
  void aSemicolonSeparatedCsvIsKeyedByItsColumnWithQuotingIntact() throws IOException {
    Path csv = dir.resolve("export.csv");
    Files.writeString(
        csv,
        "name;url\n\"Smith; J\";https://a.example\nJones;https://b.example\nX;https://a.example\n");
    Cli.Result r = Cli.run("dedup", "--column", "url", "--delimiter", ";", csv.toString());
    assertThat(r.status()).as(r.err()).isZero();
    assertThat(r.out())
        .isEqualTo("name;url\n\"Smith; J\";https://a.example\nJones;https://b.example\n");
    // without it, the header has no column 'url' (it is one field, 'name;url')
    assertThat(Cli.run("dedup", "--column", "url", csv.toString()).status()).isEqualTo(1);
    Cli.Result bad = Cli.run("dedup", "--whole-line", "--delimiter", ";", csv.toString());
    assertThat(bad.status()).isEqualTo(IdemCommand.EXIT_USAGE);
    assertThat(bad.err()).contains("--delimiter applies to csv and tsv inputs");
  }

  @Test
  void aCsvFromASpreadsheetWithAByteOrderMarkFindsItsHeaderColumn() throws IOException {
    Path csv = dir.resolve("export.csv");
    Files.write(
        csv,
        ("\uFEFFurl,visits\r\nhttps://a.example,1\r\nhttps://b.example,2\r\n"
                + "https://a.example,3\r\n")
            .getBytes(StandardCharsets.UTF_8));
    Cli.Result r = Cli.run("dedup", "--column", "url", csv.toString());
    assertThat(r.status()).as(r.err()).isZero();
    assertThat(r.out()).isEqualTo("url,visits\r\nhttps://a.example,1\r\nhttps://b.example,2\r\n");
  }

  @Test
  void escapedAndRawUnicodeAreOneKeyAndNumbersAreKeysToo() throws IOException {
    Path in =
        write(
            "in.jsonl",
            "{\"id\":\"caf\\u00e9\"}\n{\"id\":\"café\"}\n{\"id\":7}\n"
                + "{\"id\":7.0}\n{\"id\":7}\n{\"meta\":{\"url\":\"x\"},\"id\":0}\n");
    Cli.Result r = Cli.run("dedup", "--key", "id", in.toString());
    assertThat(r.out().lines())
        .containsExactly(
            "{\"id\":\"caf\\u00e9\"}",
            "{\"id\":7}",
            "{\"id\":7.0}",
            "{\"meta\":{\"url\":\"x\"},\"id\":0}");
    Cli.Result pointer =
        Cli.run("dedup", "--key", "/meta/url", "--on-bad-record", "skip", in.toString());
    assertThat(pointer.out().lines()).containsExactly("{\"meta\":{\"url\":\"x\"},\"id\":0}");
    assertThat(pointer.err()).contains("5 bad records");
  }

  @Test
  void dashAsOutputIsStandardOutputForBothJobs() throws IOException {
    Path in = write("in.txt", "b\na\nb\n");
    for (String job : new String[] {"dedup", "sort-dedup"}) {
      Cli.Result r = Cli.run(job, "--whole-line", "-o", "-", in.toString());
      assertThat(r.status()).as(r.err()).isZero();
      assertThat(r.out()).as(job).isEqualTo("b\na\n");
    }
  }

  @Test
  void csvWithQuotedNewlinesHeaderAndColumnByName() throws IOException {
    Path in =
        write(
            "in.csv",
            "name,url\r\n\"Smith, J\",http://a\r\n\"multi\nline\",http://b\r\n"
                + "x,http://a\r\n\"q\"\"uote\",\"http://c\"\r\n");
    Cli.Result r = Cli.run("dedup", "--column", "url", in.toString());
    assertThat(r.status()).as(r.err()).isZero();
    assertThat(r.out())
        .isEqualTo(
            "name,url\r\n\"Smith, J\",http://a\r\n\"multi\nline\",http://b"
                + "\r\n\"q\"\"uote\",\"http://c\"\r\n");
    Cli.Result byNumber = Cli.run("dedup", "--column", "2", "--header", in.toString());
    assertThat(byNumber.out()).isEqualTo(r.out());
  }

  @Test
  void tsvAndWholeLinesAndSeveralInputsInOrder() throws IOException {
    Path a = write("a.tsv", "k\tv\n1\tx\n2\ty\n");
    Path b = write("b.tsv", "k\tv\n2\tz\n3\tw\n");
    Cli.Result tsv = Cli.run("dedup", "--column", "k", a.toString(), b.toString());
    assertThat(tsv.out()).isEqualTo("k\tv\n1\tx\n2\ty\n3\tw\n");
    Path lines = write("l.txt", "b\na\n\nb\n\na");
    Cli.Result whole = Cli.run("dedup", "--whole-line", lines.toString());
    assertThat(whole.out()).isEqualTo("b\na\n\n");
  }

  @Test
  void gzipShardsInADirectoryAndAGlobAreReadInNameOrder() throws IOException {
    Path shards = Files.createDirectory(dir.resolve("shards"));
    for (int s = 2; s >= 0; s--) {
      try (OutputStream out =
          new GZIPOutputStream(Files.newOutputStream(shards.resolve("part-" + s + ".jsonl.gz")))) {
        out.write(
            ("{\"id\":" + s + "}\n{\"id\":" + (s + 1) + "}\n").getBytes(StandardCharsets.UTF_8));
      }
    }
    Cli.Result byDir = Cli.run("dedup", "--key", "id", shards.toString());
    assertThat(byDir.out()).isEqualTo("{\"id\":0}\n{\"id\":1}\n{\"id\":2}\n{\"id\":3}\n");
    Cli.Result byGlob = Cli.run("dedup", "--key", "id", shards + "/part-*.jsonl.gz");
    assertThat(byGlob.out()).isEqualTo(byDir.out());
  }

  @Test
  void droppedDuplicatesAreWrittenWithFileAndLineAndStatsAsJson() throws IOException {
    Path in = write("in.jsonl", "{\"id\":1}\n{\"id\":1,\"again\":true}\n{\"id\":2}\n");
    Path dropped = dir.resolve("dropped.tsv");
    Path stats = dir.resolve("stats.json");
    Cli.Result r =
        Cli.run(
            "dedup",
            "--key",
            "id",
            "--dropped",
            dropped.toString(),
            "--stats-json",
            stats.toString(),
            "-o",
            dir.resolve("out.jsonl").toString(),
            in.toString());
    assertThat(r.status()).isZero();
    assertThat(read(dropped)).isEqualTo(in + "\t2\t{\"id\":1,\"again\":true}\n");
    JsonNode s = new ObjectMapper().readTree(stats.toFile());
    assertThat(s.get("records").asLong()).isEqualTo(3);
    assertThat(s.get("kept").asLong()).isEqualTo(2);
    assertThat(s.get("duplicates").asLong()).isEqualTo(1);
    assertThat(s.get("mode").asText()).isEqualTo("exact");
  }

  @Test
  void filterBitsCountOnlyAFilterNotAnExactSetAnsweringAlone() throws IOException {
    Path in = write("in.jsonl", "{\"id\":1}\n{\"id\":2}\n");
    Path stats = dir.resolve("stats.json");
    for (String store : new String[] {"memory", "rocksdb"}) {
      Cli.Result r =
          Cli.run(
              "dedup",
              "--key",
              "id",
              "--exact-store",
              store,
              "--state",
              dir.resolve("st-" + store).toString(),
              "--stats-json",
              stats.toString(),
              "-o",
              dir.resolve("o-" + store + ".jsonl").toString(),
              in.toString());
      assertThat(r.status()).as(r.err()).isZero();
      JsonNode s = new ObjectMapper().readTree(stats.toFile());
      if (store.equals("memory")) {
        assertThat(s.get("filter").asText()).startsWith("none");
        assertThat(s.get("filter_bits").asLong()).isZero();
      } else {
        assertThat(s.get("filter").asText()).doesNotStartWith("none");
        assertThat(s.get("filter_bits").asLong()).isPositive();
      }
    }
  }

  @Test
  void fullKeysWithoutAnExactTierAreAUsageError() throws IOException {
    // they used to fail at the first checkpoint with an internal error
    Path in = write("in.jsonl", "{\"id\":1}\n");
    Cli.Result r =
        Cli.run(
            "dedup",
            "--key",
            "id",
            "--mode",
            "approximate",
            "--key-mode",
            "full",
            "--state",
            dir.resolve("st").toString(),
            "-o",
            dir.resolve("o.jsonl").toString(),
            in.toString());
    assertThat(r.status()).isEqualTo(2);
    assertThat(r.err()).contains("--key-mode full").contains("--mode approximate");
  }

  @Test
  void metricsAreServedWhileTheJobRuns() throws IOException {
    Path in = write("in.jsonl", "{\"id\":1}\n{\"id\":1}\n");
    Cli.Result r =
        Cli.run(
            "dedup",
            "--key",
            "id",
            "--metrics-port",
            "0",
            "-o",
            dir.resolve("o.jsonl").toString(),
            in.toString());
    assertThat(r.status()).as(r.err()).isZero();
    assertThat(r.err()).containsPattern("metrics at http://127.0.0.1:[0-9]+/metrics");
  }

  @Test
  void droppedNamesANonAsciiInputPathWhole() throws IOException {
    Path in = write("données-é.jsonl", "{\"id\":1}\n{\"id\":1}\n");
    Path dropped = dir.resolve("dropped.tsv");
    Cli.Result r =
        Cli.run(
            "dedup",
            "--key",
            "id",
            "--dropped",
            dropped.toString(),
            "-o",
            dir.resolve("out.jsonl").toString(),
            in.toString());
    assertThat(r.status()).as(r.err()).isZero();
    assertThat(read(dropped)).isEqualTo(in + "\t2\t{\"id\":1}\n");
  }

  @Test
  void normalizedKeysAndFullKeyMode() throws IOException {
    Path in = write("in.jsonl", "{\"u\":\"Example.COM \"}\n{\"u\":\"example.com\"}\n");
    Cli.Result r =
        Cli.run(
            "dedup",
            "--key",
            "u",
            "--normalize",
            "trim,lowercase",
            "--key-mode",
            "full",
            in.toString());
    assertThat(r.out().lines()).hasSize(1);
  }

  @Test
  void standardInputWorksWithoutState() {
    Cli.Result r = Cli.runWithInput("x\ny\nx\n", "dedup", "--whole-line", "-");
    assertThat(r.out()).isEqualTo("x\ny\n");
  }

  @Test
  void approximateModeSaysSoInTheSummary() throws IOException {
    Path in = write("in.jsonl", "{\"id\":1}\n{\"id\":1}\n");
    Cli.Result r = Cli.run("dedup", "--key", "id", "--mode", "approximate", in.toString());
    assertThat(r.err()).contains("mode approximate; exact tier none");
  }

  /** The capacity the exact set in memory was made with, from the summary's filter line. */
  private static long setCapacity(Path stats) throws IOException {
    String filter = new ObjectMapper().readTree(stats.toFile()).get("filter").asText();
    java.util.regex.Matcher m =
        java.util.regex.Pattern.compile("at capacity (\\d+)").matcher(filter);
    assertThat(m.find()).as(filter).isTrue();
    return Long.parseLong(m.group(1));
  }

  @Test
  void standardInputStartsWithASmallExactSetThatGrows() throws IOException {
    // 300 records: a set for them, not for the millions a guess without a size allowed for
    StringBuilder small = new StringBuilder();
    for (int i = 0; i < 300; i++) {
      small.append("{\"id\":").append(i % 200).append("}\n");
    }
    Path stats = dir.resolve("small.json");
    Cli.Result r =
        Cli.runWithInput(
            small.toString(), "dedup", "--key", "id", "--stats-json", stats.toString());
    assertThat(r.status()).as(r.err()).isZero();
    assertThat(r.out().lines()).hasSize(200);
    assertThat(setCapacity(stats)).isLessThan(100_000);

    // and it grows to what comes: 400,000 distinct keys, each kept once
    StringBuilder large = new StringBuilder();
    for (int i = 0; i < 400_000; i++) {
      large.append(i).append('\n');
    }
    large.append("7\n");
    Path largeStats = dir.resolve("large.json");
    Cli.Result l =
        Cli.runWithInput(
            large.toString(), "dedup", "--whole-line", "--stats-json", largeStats.toString());
    assertThat(l.status()).as(l.err()).isZero();
    assertThat(l.out().lines()).hasSize(400_000);
    assertThat(setCapacity(largeStats)).isGreaterThanOrEqualTo(400_000);

    // --expected sizes it
    Path expected = dir.resolve("expected.json");
    Cli.Result e =
        Cli.runWithInput(
            small.toString(),
            "dedup",
            "--key",
            "id",
            "--expected",
            "2M",
            "--stats-json",
            expected.toString());
    assertThat(e.status()).as(e.err()).isZero();
    assertThat(setCapacity(expected)).isGreaterThanOrEqualTo(2_000_000);
  }
}
