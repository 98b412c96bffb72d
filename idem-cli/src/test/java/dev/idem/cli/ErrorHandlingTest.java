package dev.idem.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;
import picocli.CommandLine;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;

/** Usage errors exit 2 with one line; user mistakes exit 1 with one line; never a stack trace. */
class ErrorHandlingTest {

  @TempDir Path dir;

  @ParameterizedTest
  @CsvSource(
      delimiter = '|',
      quoteCharacter = '"',
      value = {
        "filter build -o x.idx|Missing required option: '--expected=N'",
        "filter build -n 0 -o x.idx|'0' must be a positive count",
        "filter build -n ten -o x.idx|'ten' is not a whole count",
        "filter build -n 10 --fpp 1.5 -o x.idx|'1.5' must be between 0 and 1",
        "filter build -n 10 --type bitmap -o x.idx|unknown filter type 'bitmap'",
        "filter build -n 10 --type bloom --max-layers 3 -o x.idx|apply to --type scalable only",
        "filter build -n 10 --type cuckoo --fingerprint-bits 40 -o x.idx|4 to 32 bits",
        "filter build -n 10 --type scalable --slice-time 0s -o x.idx|must be a positive duration",
        "filter build -n 10 --normalize lowr -o x.idx|unknown normalizer step 'lowr'",
        "filter build -n 100000000000 --fpp 1e-9 -o x.idx|one filter holds at most",
        "filter verify --trials 0|--trials must be at least 1",
        "filter|a subcommand is required",
        "filter frobnicate|Unmatched argument",
        "filter query|Missing required parameter: 'FILTER'",
      })
  void usageErrorsExitTwoWithOneLine(String args, String message) {
    Cli.Result r = Cli.run(args.split(" "));
    assertThat(r.status()).isEqualTo(2);
    assertThat(r.err()).contains(message).contains("--help')");
    assertThat(r.err().strip().lines()).hasSize(1);
    assertThat(r.out()).isEmpty();
  }

  /**
   * Every option that takes one of a few words: a wrong word is a usage error naming the option,
   * the word and every right one, which the help lists too; a right one is taken in any case.
   */
  @ParameterizedTest
  @CsvSource(
      delimiter = '|',
      value = {
        "dedup|--key id|--mode|exact or approximate",
        "dedup|--key id|--key-mode|fingerprint or full",
        "dedup|--key id|--filter|bloom, blocked, partitioned or scalable",
        "dedup|--key id|--exact-store|auto, memory, rocksdb, partitioned or "
            + "redis://HOST[:PORT][/DB][?prefix=P&ttl=T]",
        "dedup|--key id|--verify-inputs|sample or full",
        "dedup|--key id --window 1m|--time-format|millis, seconds or iso",
        "dedup|--key id|--format|jsonl, csv, tsv, lines or parquet",
        "sort-dedup|--key id|--keep|first or last",
        "sort-dedup|--key id|--order|input or key",
        "sort-dedup|--key id|--compress-runs|auto, lz4 or none",
        "sort-dedup|--key id|--format|jsonl, csv, tsv, lines or parquet",
        "split|--key id -o shards|--verify-inputs|sample or full",
        "filter query|f.idx|--load|auto, heap or map",
        "plan|--distinct 10|--shared-state|redis or none",
      })
  void aWrongChoiceNamesTheOptionAndTheChoices(
      String command, String args, String option, String choices) throws Exception {
    List<String> line = new ArrayList<>(List.of(command.split(" ")));
    line.addAll(List.of(args.split(" ")));
    line.addAll(List.of(option, "nope", "x"));
    Cli.Result r = Cli.run(line.toArray(String[]::new));
    assertThat(r.status()).isEqualTo(2);
    assertThat(r.err())
        .isEqualTo(
            "idem "
                + command
                + ": Invalid value for option '"
                + option
                + "': 'nope' is not "
                + choices
                + " (see 'idem "
                + command
                + " --help')\n");
    assertThat(r.out()).isEmpty();

    OptionSpec spec = commandSpec(command).findOption(option);
    String help = spec.paramLabel() + " " + String.join(" ", spec.description());
    for (String choice : choices.split(", | or ")) {
      assertThat(help).as(option + " --help").contains(choice);
      if (!choice.contains("://")) {
        assertThat(spec.converters()[0].convert(choice.toUpperCase(Locale.ROOT))).isNotNull();
      }
    }
  }

  private static CommandSpec commandSpec(String command) {
    Object c =
        switch (command) {
          case "dedup" -> new DedupCommand(null);
          case "sort-dedup" -> new SortDedupCommand(null);
          case "split" -> new SplitCommand(null);
          case "filter query" -> new FilterQueryCommand(null);
          case "plan" -> new PlanCommand(null);
          default -> throw new IllegalArgumentException(command);
        };
    return new CommandLine(c).getCommandSpec();
  }

  @Test
  void noCommandAtAllIsAUsageError() {
    Cli.Result r = Cli.run();
    assertThat(r.status()).isEqualTo(2);
    assertThat(r.err()).isEqualTo("idem: a command is required (see 'idem --help')\n");
  }

  @Test
  void missingInputsAndCorruptSnapshotsExitOneNamingTheFile() throws IOException {
    Path idx = dir.resolve("f.idx");
    Cli.Result missing =
        Cli.run(
            "filter",
            "build",
            "-n",
            "10",
            "-o",
            idx.toString(),
            dir.resolve("nope.txt").toString());
    assertThat(missing.status()).isEqualTo(1);
    assertThat(missing.err().strip()).endsWith("nope.txt: no such file").startsWith("idem: ");
    assertThat(Files.exists(idx)).isFalse();

    Cli.Result noSnapshot = Cli.run("filter", "query", dir.resolve("none.idx").toString(), "k");
    assertThat(noSnapshot.status()).isEqualTo(1);
    assertThat(noSnapshot.err()).contains("none.idx: no such file");

    Files.writeString(idx, "not a filter\n".repeat(10));
    for (String[] args :
        new String[][] {{"query", idx.toString(), "k"}, {"stats", idx.toString()}}) {
      Cli.Result bad = Cli.run("filter", args[0], args[1]);
      assertThat(bad.status()).isEqualTo(1);
      assertThat(bad.err())
          .startsWith("idem: " + idx + ": not an idem filter snapshot")
          .doesNotContain("Exception")
          .doesNotContain("\tat ");
    }
  }

  @Test
  void invalidUtf8UnderATextNormalizerNamesFileAndLine() throws IOException {
    Path keys = dir.resolve("keys.txt");
    Files.write(keys, new byte[] {'o', 'k', '\n', 'b', 'a', (byte) 0xC3, '\n'});
    Cli.Result r =
        Cli.run(
            "filter",
            "build",
            "-n",
            "10",
            "--normalize",
            "lowercase",
            "-o",
            dir.resolve("f.idx").toString(),
            keys.toString());
    assertThat(r.status()).isEqualTo(1);
    assertThat(r.err()).contains(keys + ":2: key is not valid UTF-8");
  }

  @Test
  void outputIntoAMissingDirectoryIsRefused() {
    Cli.Result r =
        Cli.runWithInput(
            "k\n",
            "filter",
            "build",
            "-n",
            "10",
            "-o",
            dir.resolve("no/such/dir/f.idx").toString());
    assertThat(r.status()).isEqualTo(1);
    assertThat(r.err()).contains("does not exist");
  }

  @ParameterizedTest
  @CsvSource(
      delimiter = '|',
      value = {
        "5|dedup --key id -o OUT IN|truncated gzip file (it ends inside its header)",
        "200|dedup --key id -o OUT IN|truncated gzip file (Unexpected end of ZLIB input stream)",
        "200|dedup --key id --expected auto -o OUT IN|truncated gzip file",
        "200|sort-dedup --key id -o OUT IN|truncated gzip file",
        "300000|dedup --key id -o OUT IN|read failed after line",
        "300000|sort-dedup --key id -o OUT IN|read failed after line",
      })
  void aTruncatedGzipInputIsNamed(int keptBytes, String command, String problem)
      throws IOException {
    java.io.ByteArrayOutputStream gz = new java.io.ByteArrayOutputStream();
    try (var zip = new java.util.zip.GZIPOutputStream(gz)) {
      for (int i = 0; i < 200_000; i++) {
        zip.write(("{\"id\":" + i * 7919L % 1_000_003 + "}\n").getBytes());
      }
    }
    Path in = dir.resolve("part-1.jsonl.gz");
    Files.write(in, java.util.Arrays.copyOf(gz.toByteArray(), keptBytes));

    Cli.Result r =
        Cli.run(
            command
                .replace("OUT", dir.resolve("o.jsonl").toString())
                .replace("IN", in.toString())
                .split(" "));

    assertThat(r.status()).isEqualTo(1);
    assertThat(r.err()).startsWith("idem: " + in + ": ").contains(problem).doesNotContain("\tat ");
  }

  @ParameterizedTest
  @ValueSource(strings = {"-o /dev/full", "-o /dev/null --dropped /dev/full"})
  void aFullDiskIsNamed(String outputs) throws IOException {
    org.assertj.core.api.Assumptions.assumeThat(Path.of("/dev/full")).exists();
    Path in = dir.resolve("in.txt");
    Files.writeString(in, "a\nb\na\n".repeat(30_000));

    Cli.Result r = Cli.run(("dedup --whole-line " + outputs + " " + in).split(" "));

    assertThat(r.status()).isEqualTo(1);
    assertThat(r.err()).isEqualTo("idem: /dev/full: write failed: No space left on device\n");
  }

  @ParameterizedTest
  @ValueSource(
      strings = {"", "filter", "filter build", "filter query", "filter stats", "filter verify"})
  void helpIsAvailableEverywhere(String command) {
    String[] args = (command + " --help").strip().split(" ");
    Cli.Result r = Cli.run(args);
    assertThat(r.status()).isZero();
    assertThat(r.out()).contains("Usage: idem");
  }

  @Test
  void versionNamesTheRelease() {
    Cli.Result r = Cli.run("--version");
    assertThat(r.status()).isZero();
    assertThat(r.out()).startsWith("idem ").doesNotContain("${");
  }
}
