package dev.idem.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** How the command line answers what people type: no input named, typos, options out of place. */
class UsageTest {

  @Test
  void theShellCompletionScriptKnowsTheCommandsAndTheirOptions() {
    Cli.Result r = Cli.run("generate-completion");
    assertThat(r.status()).as(r.err()).isZero();
    assertThat(r.out())
        .contains("complete -F")
        .contains("sort-dedup")
        .contains("--checkpoint-every")
        .contains("--stats-json");
  }

  @Test
  void withNoInputNamedDedupAndSortDedupReadStandardInputLikeSortAndUniq() {
    Cli.Result dedup = Cli.runWithInput("b\na\nb\n", "dedup", "-q", "--whole-line");
    assertThat(dedup.status()).as(dedup.err()).isZero();
    assertThat(dedup.out()).isEqualTo("b\na\n");
    Cli.Result sort = Cli.runWithInput("b\na\nb\n", "sort-dedup", "-q", "--whole-line");
    assertThat(sort.status()).as(sort.err()).isZero();
    assertThat(sort.out()).isEqualTo("b\na\n");
  }

  @Test
  void aMistypedCommandOrOptionGetsTheNearestNames() {
    Cli.Result command = Cli.run("dedpu", "--key", "id");
    assertThat(command.status()).isEqualTo(2);
    assertThat(command.err()).contains("did you mean dedup?");
    Cli.Result option = Cli.run("dedup", "--kye", "id", "in.jsonl");
    assertThat(option.status()).isEqualTo(2);
    assertThat(option.err()).contains("did you mean --key?");
    Cli.Result far = Cli.run("dedup", "--zzzzzzzz", "in.jsonl");
    assertThat(far.err()).contains("Unknown option").doesNotContain("did you mean");
  }

  @Test
  void editDistanceCountsTyposSwapsAndMissingLetters() {
    assertThat(DidYouMean.distance("dedup", "dedup")).isZero();
    assertThat(DidYouMean.distance("dedpu", "dedup")).isEqualTo(1); // a swap
    assertThat(DidYouMean.distance("dedu", "dedup")).isEqualTo(1);
    assertThat(DidYouMean.distance("--kye", "--key")).isEqualTo(1);
    assertThat(DidYouMean.distance("split", "dedup")).isGreaterThan(3);
    assertThat(DidYouMean.nearest("--stat", java.util.List.of("--state", "--stats-json", "--seed")))
        .containsExactly("--state");
  }

  @Test
  void aTimeFormatWithoutATimeFieldIsAUsageError() {
    Cli.Result r =
        Cli.runWithInput(
            "{\"u\":1}\n", "dedup", "--key", "u", "--window", "10m", "--time-format", "iso");
    assertThat(r.status()).isEqualTo(2);
    assertThat(r.err()).contains("--time-format").contains("--time-field");
  }

  @Test
  void aDottedKeyThatNoRecordHasGetsThePointerAndNotAdviceToSkip(@TempDir Path dir)
      throws Exception {
    Path in = dir.resolve("in.jsonl");
    Files.writeString(in, "{\"meta\":{\"url\":\"a\"},\"n\":1}\n");
    Cli.Result r = Cli.run("dedup", "--key", "meta.url", in.toString());
    assertThat(r.status()).isEqualTo(1);
    assertThat(r.err())
        .contains("did you mean --key /meta/url?")
        .contains("this record's fields: meta, n")
        .contains("check --key")
        .doesNotContain("rerun with --on-bad-record skip");
    Files.writeString(in, "{\"id\":1}\n{\"x\":1}\n");
    Cli.Result later = Cli.run("dedup", "--key", "id", in.toString());
    assertThat(later.err()).contains(":2: no field /id").contains("--on-bad-record skip");
  }

  @Test
  void fileSystemErrorsSayWhatIsWrongWithTheFile() {
    assertThat(IoErrors.describe(new java.nio.file.AccessDeniedException("ro/out.jsonl")))
        .isEqualTo("ro/out.jsonl: permission denied");
    assertThat(IoErrors.describe(new java.nio.file.NoSuchFileException("in.jsonl")))
        .isEqualTo("in.jsonl: no such file or directory");
    assertThat(
            IoErrors.describe(
                new java.nio.file.FileSystemException("f", null, "Read-only file system")))
        .isEqualTo("f: Read-only file system");
    assertThat(IoErrors.describe(new java.io.IOException("plain"))).isEqualTo("plain");
  }

  @Test
  void aMissingCsvColumnAndAMissingJsonFieldFailAlike(@TempDir Path dir) throws Exception {
    Path csv = dir.resolve("in.csv");
    Files.writeString(csv, "a,b\n1,2\n");
    Path json = dir.resolve("in.jsonl");
    Files.writeString(json, "{\"a\":1}\n");
    Cli.Result column = Cli.run("dedup", "--column", "c", csv.toString());
    Cli.Result field = Cli.run("dedup", "--key", "c", json.toString());
    assertThat(column.status()).isEqualTo(1).isEqualTo(field.status());
    assertThat(column.err()).contains("no column 'c'");
  }

  @Test
  void onlyCommandsThatMayOpenRocksDbUnpackItsLibrary() {
    assertThat(IdemCommand.mayUseRocksDb("dedup", "--key", "id", "in")).isTrue();
    assertThat(IdemCommand.mayUseRocksDb("--version")).isFalse();
    assertThat(IdemCommand.mayUseRocksDb("dedup", "--help")).isFalse();
    assertThat(IdemCommand.mayUseRocksDb("sort-dedup", "--whole-line")).isFalse();
    assertThat(IdemCommand.mayUseRocksDb()).isFalse();
  }
}
