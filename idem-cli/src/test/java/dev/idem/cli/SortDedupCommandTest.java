package dev.idem.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assumptions.assumeThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.idem.engine.records.KeySpec;
import dev.idem.engine.sort.SortDedupSpec;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;
import java.util.stream.Stream;
import java.util.zip.GZIPOutputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;
import picocli.CommandLine;

/** idem sort-dedup through the CLI: formats, options, outputs, bad input, usage errors. */
class SortDedupCommandTest {

  @TempDir Path dir;

  private Path write(String name, String content) throws IOException {
    return Files.writeString(dir.resolve(name), content);
  }

  private Path tmp() throws IOException {
    return Files.createDirectories(dir.resolve("tmp"));
  }

  private Cli.Result sortDedup(String... args) throws IOException {
    List<String> all = new ArrayList<>(List.of("sort-dedup", "--tmp", tmp().toString()));
    all.addAll(List.of(args));
    Cli.Result r = Cli.run(all.toArray(String[]::new));
    try (Stream<Path> left = Files.list(tmp())) {
      assertThat(left).as("left in --tmp").isEmpty();
    }
    return r;
  }

  @ParameterizedTest
  @ValueSource(strings = {"1m", "64m"})
  void writesWhatDedupWritesOnAGeneratedInput(String memory) throws IOException {
    DedupInput input = DedupInput.generate(40_000, 11); // ~4 MiB: many runs at 1m
    Path in = Files.write(dir.resolve("in.jsonl"), input.input);
    Path out = dir.resolve("out.jsonl");
    Path stats = dir.resolve("stats.json");
    Cli.Result r =
        sortDedup(
            "--key",
            "id",
            "--memory",
            memory,
            "-o",
            out.toString(),
            "--stats-json",
            stats.toString(),
            in.toString());
    assertThat(r.status()).as(r.err()).isZero();
    assertThat(Files.readAllBytes(out)).isEqualTo(input.expected);
    assertThat(r.err())
        .contains(String.format("%,d records, %,d kept", input.records, input.distinct));
    JsonNode s = new ObjectMapper().readTree(stats.toFile());
    assertThat(s.get("kept").asLong()).isEqualTo(input.distinct);
    assertThat(s.get("duplicates").asLong()).isEqualTo(input.records - input.distinct);
    assertThat(s.get("output_bytes").asLong()).isEqualTo(input.expected.length);
    if (memory.equals("1m")) {
      assertThat(s.get("runs").asInt()).isGreaterThan(1);
      assertThat(s.get("merge_passes").asInt()).isGreaterThanOrEqualTo(2);
      assertThat(r.err()).contains("sorted runs").contains(tmp().toString());
    } else {
      assertThat(s.get("runs").asInt()).isZero();
      assertThat(r.err()).contains("the input fit in memory");
    }
  }

  @ParameterizedTest
  @ValueSource(strings = {"input", "key"})
  void uncompressedRunsGiveTheSameOutputAndWriteMoreToTmp(String order) throws IOException {
    DedupInput input = DedupInput.generate(40_000, 12);
    Path in = Files.write(dir.resolve("in.jsonl"), input.input);
    long[] written = new long[2];
    byte[][] outputs = new byte[2][];
    String[] modes = {"lz4", "none"};
    for (int i = 0; i < 2; i++) {
      Path out = dir.resolve("out-" + modes[i]);
      Path stats = dir.resolve("stats-" + modes[i] + ".json");
      Cli.Result r =
          sortDedup(
              "--key",
              "id",
              "--memory",
              "1m",
              "--order",
              order,
              "--compress-runs",
              modes[i],
              "-o",
              out.toString(),
              "--stats-json",
              stats.toString(),
              in.toString());
      assertThat(r.status()).as(r.err()).isZero();
      outputs[i] = Files.readAllBytes(out);
      JsonNode s = new ObjectMapper().readTree(stats.toFile());
      assertThat(s.get("runs").asInt()).isGreaterThan(1);
      written[i] = s.get("temp_bytes_written").asLong();
    }
    assertThat(outputs[1]).isEqualTo(outputs[0]);
    if (order.equals("input")) {
      assertThat(outputs[1]).isEqualTo(input.expected);
    }
    assertThat(written[1]).as("bytes written to --tmp without LZ4").isGreaterThan(written[0]);
  }

  @Test
  void keepLastAndKeyOrder() throws IOException {
    Path in = write("in.txt", "b 1\na 2\nb 3\nc 4\na 5\n");
    // key: the first letter (column 1 of a space-free TSV is the line, so use jsonl instead)
    Path json =
        write(
            "in.jsonl",
            "{\"k\":\"b\",\"v\":1}\n{\"k\":\"a\",\"v\":2}\n"
                + "{\"k\":\"b\",\"v\":3}\n{\"k\":\"c\",\"v\":4}\n{\"k\":\"a\",\"v\":5}\n");
    assertThat(sortDedup("--key", "k", "--keep", "last", json.toString()).out())
        .isEqualTo("{\"k\":\"b\",\"v\":3}\n{\"k\":\"c\",\"v\":4}\n{\"k\":\"a\",\"v\":5}\n");
    assertThat(sortDedup("--key", "k", "--exact-key", "--order", "key", json.toString()).out())
        .isEqualTo("{\"k\":\"a\",\"v\":2}\n{\"k\":\"b\",\"v\":1}\n{\"k\":\"c\",\"v\":4}\n");
    Cli.Result byFingerprint = sortDedup("--whole-line", "--order", "key", in.toString());
    assertThat(byFingerprint.out().lines())
        .containsExactlyInAnyOrder("b 1", "a 2", "b 3", "c 4", "a 5");
  }

  @Test
  void exactKeysInKeyOrderAreSortUniq() throws IOException {
    StringBuilder sb = new StringBuilder();
    TreeSet<String> sorted = new TreeSet<>();
    for (int i = 0; i < 30_000; i++) {
      String line = "line-" + (i * 7919 % 12_000) + "-" + "z".repeat(i % 13);
      sb.append(line).append('\n');
      sorted.add(line); // ASCII: String order is byte order
    }
    Path in = write("in.txt", sb.toString());
    Cli.Result r =
        sortDedup("--whole-line", "--exact-key", "--order", "key", "--memory", "1m", in.toString());
    assertThat(r.status()).as(r.err()).isZero();
    assertThat(r.out()).isEqualTo(String.join("\n", sorted) + "\n");
  }

  @Test
  void csvHeaderOnceTsvSeveralInputsGzipAndStandardInput() throws IOException {
    Path csv =
        write(
            "in.csv",
            "name,url\r\n\"Smith, J\",http://a\r\n\"multi\nline\",http://b\r\n"
                + "x,http://a\r\n\"q\"\"uote\",\"http://c\"\r\n");
    Cli.Result r = sortDedup("--column", "url", csv.toString());
    assertThat(r.status()).as(r.err()).isZero();
    assertThat(r.out())
        .isEqualTo(
            "name,url\r\n\"Smith, J\",http://a\r\n\"multi\nline\",http://b"
                + "\r\n\"q\"\"uote\",\"http://c\"\r\n");
    Path a = write("a.tsv", "k\tv\n1\tx\n2\ty\n");
    Path b = write("b.tsv", "k\tv\n2\tz\n3\tw");
    assertThat(sortDedup("--column", "k", a.toString(), b.toString()).out())
        .isEqualTo("k\tv\n1\tx\n2\ty\n3\tw\n");
    Path gz = dir.resolve("part.jsonl.gz");
    try (OutputStream out = new GZIPOutputStream(Files.newOutputStream(gz))) {
      out.write("{\"id\":1}\n{\"id\":2}\n{\"id\":1}\n".getBytes(StandardCharsets.UTF_8));
    }
    assertThat(sortDedup("--key", "id", gz.toString()).out()).isEqualTo("{\"id\":1}\n{\"id\":2}\n");
    Cli.Result stdin =
        Cli.runWithInput("x\ny\nx", "sort-dedup", "--whole-line", "--tmp", tmp().toString(), "-");
    assertThat(stdin.out()).isEqualTo("x\ny\n");
  }

  @Test
  void theOutputMayNotBeAnInput() throws IOException {
    // unlike sort -o, which a kill in the middle of writing leaves with neither file whole
    String content = "a\nb\na\nc\nb\n".repeat(20_000);
    Path in = write("in.txt", content);
    Cli.Result r = sortDedup("--whole-line", "--memory", "1m", "-o", in.toString(), in.toString());
    assertThat(r.status()).isEqualTo(2);
    assertThat(r.err()).contains("is the same file as input");
    assertThat(Files.readString(in)).isEqualTo(content);
  }

  private static final String BAD =
      """
      {"id":1}
      {"id":2
      {"other":3}
      {"id":null}
      {"id":{"a":1}}
      [1,2]

      {"id":1}
      {"id":4} trailing
      {"id":5}
      """;

  @ParameterizedTest
  @ValueSource(ints = {2, 3, 4, 5, 6, 9})
  void badRecordsFailWithTheMessagesOfDedup(int line) throws IOException {
    List<String> lines = BAD.lines().toList();
    Path in = write("bad.jsonl", lines.get(0) + "\n" + lines.get(line - 1) + "\n");
    Cli.Result dedup = Cli.run("dedup", "--key", "id", in.toString());
    Cli.Result sort = sortDedup("--key", "id", in.toString());
    assertThat(sort.status()).isEqualTo(1);
    assertThat(sort.err())
        .isEqualTo(dedup.err())
        .startsWith("idem: " + in + ":2: ")
        .contains("--on-bad-record skip");
    assertThat(sort.out()).isEmpty(); // nothing is written before all input is read
  }

  @Test
  void skipAndQuarantineCountLikeDedup() throws IOException {
    Path in = write("bad.jsonl", BAD);
    Cli.Result skip = sortDedup("--key", "id", "--on-bad-record", "skip", in.toString());
    assertThat(skip.status()).isZero();
    assertThat(skip.out()).isEqualTo("{\"id\":1}\n{\"id\":5}\n");
    assertThat(skip.err())
        .contains("9 records, 2 kept")
        .contains("6 bad records")
        .contains("1 blank lines skipped");
    Path q = dir.resolve("q.jsonl");
    Cli.Result quarantine =
        sortDedup("--key", "id", "--on-bad-record", "quarantine=" + q, in.toString());
    assertThat(quarantine.status()).isZero();
    assertThat(Files.readString(q))
        .isEqualTo(
            "{\"id\":2\n{\"other\":3}\n{\"id\":null}\n"
                + "{\"id\":{\"a\":1}}\n[1,2]\n{\"id\":4} trailing\n");
  }

  @Test
  void invalidUtf8UnderATextNormalizerAndOverlongRecords() throws IOException {
    Path in = dir.resolve("in.txt");
    try (OutputStream out = Files.newOutputStream(in)) {
      out.write("ok\n".getBytes(StandardCharsets.US_ASCII));
      out.write(new byte[] {'b', (byte) 0xC3, '\n'});
      out.write("x".repeat(5000).getBytes(StandardCharsets.US_ASCII));
      out.write("\nok2\n".getBytes(StandardCharsets.US_ASCII));
    }
    Cli.Result r =
        sortDedup(
            "--whole-line",
            "--normalize",
            "lowercase",
            "--max-record-bytes",
            "1k",
            "--on-bad-record",
            "skip",
            in.toString());
    assertThat(r.out()).isEqualTo("ok\nok2\n");
    assertThat(r.err()).contains("2 bad records");
    Cli.Result fail = sortDedup("--whole-line", "--normalize", "lowercase", in.toString());
    assertThat(fail.err()).contains(in + ":2: key is not valid UTF-8");
  }

  @ParameterizedTest
  @CsvSource(
      delimiter = '|',
      quoteCharacter = '"',
      value = {
        "--whole-line --keep middle x|option '--keep': 'middle' is not first or last",
        "--whole-line --order random x|option '--order': 'random' is not input or key",
        "--whole-line --compress-runs zstd x|option '--compress-runs': 'zstd' is not auto, lz4 or "
            + "none",
        "--whole-line --memory 100k x|--memory must be at least 1m",
        "--whole-line --memory lots x|'lots' is not a size",
        "--content text --exact-key x|drop --exact-key",
        "--whole-line --header x|--header applies to csv and tsv inputs",
        "--whole-line --on-bad-record ignore x|'ignore' is not a bad-record policy",
        "--whole-line --max-record-bytes 65m x|--max-record-bytes can be at most 64m: records are "
            + "held whole in memory; longer ones are bad records (see --on-bad-record)",
        "--key id --column 2 x|mutually exclusive",
        "x|Missing required argument",
      })
  void usageErrorsExitTwoWithOneLine(String args, String message) {
    List<String> all = new ArrayList<>(List.of("sort-dedup"));
    all.addAll(List.of(args.split(" ")));
    Cli.Result r = Cli.run(all.toArray(String[]::new));
    assertThat(r.status()).isEqualTo(2);
    assertThat(r.err()).contains(message).startsWith("idem sort-dedup: ");
    assertThat(r.err().strip().lines()).hasSize(1);
    assertThat(r.out()).isEmpty();
  }

  @Test
  void aMissingColumnMissingFilesOrTmpFail() throws IOException {
    Path csv = write("in.csv", "a,b\n1,2\n");
    Cli.Result column = sortDedup("--column", "zz", csv.toString());
    assertThat(column.status()).as("as for a missing JSON field: the data, not the usage").isOne();
    assertThat(column.err()).contains("zz").doesNotContain("Exception");
    Cli.Result missing = sortDedup("--whole-line", dir.resolve("nope.txt").toString());
    assertThat(missing.status()).isEqualTo(1);
    assertThat(missing.err().strip())
        .isEqualTo("idem: " + dir.resolve("nope.txt") + ": no such file");
    Cli.Result noTmp =
        Cli.run(
            "sort-dedup",
            "--whole-line",
            "--tmp",
            dir.resolve("no-such-dir").toString(),
            csv.toString());
    assertThat(noTmp.status()).isEqualTo(1);
    assertThat(noTmp.err().strip())
        .isEqualTo("idem: --tmp " + dir.resolve("no-such-dir") + ": no such directory");
    Cli.Result noOutDir =
        sortDedup("--whole-line", "-o", dir.resolve("no/out.txt").toString(), csv.toString());
    assertThat(noOutDir.status()).isEqualTo(1);
    assertThat(noOutDir.err()).contains("does not exist");
  }

  @Test
  void anOutputThatFailsMidMergeLeavesNoRunsBehind() throws IOException {
    Path full = Path.of("/dev/full"); // every write fails: No space left on device
    assumeThat(Files.isWritable(full)).isTrue();
    DedupInput input = DedupInput.generate(40_000, 5);
    Path in = Files.write(dir.resolve("in.jsonl"), input.input);
    Cli.Result r = sortDedup("--key", "id", "--memory", "1m", "-o", full.toString(), in.toString());
    assertThat(r.status()).isEqualTo(1);
    assertThat(r.err().strip())
        .isEqualTo("idem: /dev/full: write failed: No space left on " + "device");
  }

  @Test
  void helpDescribesTheOptions() {
    Cli.Result r = Cli.run("sort-dedup", "--help");
    assertThat(r.status()).isZero();
    assertThat(r.out())
        .contains("Usage: idem sort-dedup")
        .contains("--memory=SIZE")
        .contains("--tmp=DIR")
        .contains("--keep=first|last")
        .contains("--order=input|key")
        .contains("--compress-runs=auto|lz4|none")
        .contains("--exact-key")
        .contains("Key (exactly one)");
    assertThat(Cli.run("--help").out()).contains("sort-dedup");
  }

  /** The engine's builder starts every option where the command does. */
  @ParameterizedTest
  @CsvSource({
    "--key id,in.jsonl",
    "--column name,in.tsv.gz",
    "--column 2,in.csv",
    "--whole-line,in"
  })
  void theSpecBuilderStartsAtTheCommandsDefaults(String key, String input) {
    SortDedupCommand command = new SortDedupCommand(Cli.nullIo());
    List<String> args = new ArrayList<>(List.of(key.split(" ")));
    args.add(input);
    new CommandLine(command).parseArgs(args.toArray(String[]::new));
    KeySpec expectedKey =
        switch (key.split(" ")[0]) {
          case "--key" -> KeySpec.jsonField("id", false);
          case "--column" -> KeySpec.column(key.split(" ")[1]);
          default -> new KeySpec.WholeLine();
        };
    assertThat(command.jobSpec())
        .isEqualTo(SortDedupSpec.builder(List.of(input), expectedKey).build());
  }
}
