package dev.idem.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every command that writes refuses, before writing anything, an output that is one of its inputs,
 * lies in its state directory or is another of its outputs — however the file is named.
 */
class OutputGuardTest {

  @TempDir Path dir;

  private Path input;
  private byte[] inputBytes;

  @BeforeEach
  void writeInput() throws IOException {
    input = dir.resolve("in.jsonl");
    Files.writeString(input, "{\"id\":1}\n{\"id\":2}\n{\"id\":1}\nnot json\n");
    inputBytes = Files.readAllBytes(input);
    Files.createSymbolicLink(dir.resolve("link.jsonl"), input);
    Files.createLink(dir.resolve("hard.jsonl"), input);
    Files.createDirectories(dir.resolve("sub"));
  }

  /** Ways to name {@code in.jsonl} (relative to the test directory). */
  static Stream<String> namesOfTheInput() {
    return Stream.of("in.jsonl", "./in.jsonl", "sub/../in.jsonl", "link.jsonl", "hard.jsonl");
  }

  /**
   * Commands in which {@code %s} names the output under test, with the option that names it;
   * {@code @} marks a path relative to the test directory.
   */
  static Stream<Arguments> writingOptions() {
    return Stream.of(
        Arguments.of("dedup --key id --on-bad-record skip -o @%s @in.jsonl", "-o "),
        Arguments.of("dedup --key id --on-bad-record skip --state @st -o @%s @in.jsonl", "-o "),
        Arguments.of(
            "dedup --key id --on-bad-record skip --dropped @%s -o @out.jsonl @in.jsonl",
            "--dropped "),
        Arguments.of(
            "dedup --key id --on-bad-record quarantine=@%s -o @out.jsonl @in.jsonl",
            "--on-bad-record quarantine="),
        Arguments.of(
            "dedup --key id --on-bad-record skip --window 1h --time-field id "
                + "--late side-output=@%s -o @out.jsonl @in.jsonl",
            "--late side-output="),
        Arguments.of(
            "dedup --key id --on-bad-record skip --stats-json @%s -o @out.jsonl " + "@in.jsonl",
            "--stats-json "),
        Arguments.of("dedup --key id --on-bad-record skip -o @%s @sub/..", "-o "),
        Arguments.of("dedup --key id --on-bad-record skip -o @%s @i*.jsonl", "-o "),
        Arguments.of("sort-dedup --key id --on-bad-record skip -o @%s @in.jsonl", "-o "),
        Arguments.of(
            "sort-dedup --key id --on-bad-record quarantine=@%s -o @out.jsonl " + "@in.jsonl",
            "--on-bad-record quarantine="),
        Arguments.of(
            "sort-dedup --key id --on-bad-record skip --stats-json @%s @in.jsonl", "--stats-json "),
        Arguments.of("filter build -n 100 -o @%s @in.jsonl", "-o "),
        Arguments.of(
            "split --key id --shards 2 --on-bad-record quarantine=@%s -o @shards " + "@in.jsonl",
            "--on-bad-record quarantine="));
  }

  static Stream<Arguments> everyOptionAndName() {
    List<Arguments> all = new ArrayList<>();
    writingOptions()
        .forEach(
            option ->
                namesOfTheInput()
                    .forEach(
                        name -> all.add(Arguments.of(option.get()[0], option.get()[1], name))));
    return all.stream();
  }

  @ParameterizedTest(name = "{0} with {2}")
  @MethodSource("everyOptionAndName")
  void anOutputThatIsAnInputIsAUsageErrorNamingBoth(String command, String option, String name)
      throws IOException {
    Cli.Result r = run(String.format(command, name));

    assertThat(r.status()).as(r.err()).isEqualTo(2);
    assertThat(r.err())
        .contains(option + at(name) + " is the same file as input " + dir)
        .doesNotContain("\tat ");
    assertThat(Files.readAllBytes(input)).isEqualTo(inputBytes);
    assertThat(dir.resolve("out.jsonl")).doesNotExist();
    assertThat(dir.resolve("shards")).doesNotExist();
  }

  @ParameterizedTest
  @MethodSource("namesOfTheInput")
  void standardInputThatIsTheOutputIsRefused(String name) throws IOException {
    // the shell's `idem dedup -o in.jsonl - < in.jsonl`: only a real process has such a stdin
    Process p =
        new ProcessBuilder(
                childCommand("dedup", "--key", "id", "--on-bad-record", "skip", "-o", name, "-"))
            .directory(dir.toFile())
            .redirectInput(input.toFile())
            .redirectError(ProcessBuilder.Redirect.PIPE)
            .start();
    String err = new String(p.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);

    assertThat(waitFor(p)).as(err).isEqualTo(2);
    assertThat(err).contains("-o " + name + " is the same file as standard input");
    assertThat(Files.readAllBytes(input)).isEqualTo(inputBytes);
  }

  @Test
  void standardOutputAppendingToAnInputIsRefused() throws IOException {
    Process p =
        new ProcessBuilder(
                childCommand("dedup", "--key", "id", "--on-bad-record", "skip", "in.jsonl"))
            .directory(dir.toFile())
            .redirectOutput(ProcessBuilder.Redirect.appendTo(input.toFile()))
            .redirectError(ProcessBuilder.Redirect.PIPE)
            .start();
    String err = new String(p.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);

    assertThat(waitFor(p)).as(err).isEqualTo(2);
    assertThat(err).contains("standard output is the same file as input in.jsonl");
    assertThat(Files.readAllBytes(input)).isEqualTo(inputBytes);
  }

  @Test
  void twoOutputsThatAreOneFileAreRefused() throws IOException {
    Files.createSymbolicLink(dir.resolve("alias.tsv"), dir.resolve("same.tsv")); // dangling
    for (String[] pair :
        new String[][] {
          {"same.tsv", "same.tsv"},
          {"same.tsv", "./same.tsv"},
          {"alias.tsv", "same.tsv"},
          {"sub/../same.tsv", "same.tsv"}
        }) {
      Cli.Result r =
          run(
              "dedup --key id --on-bad-record skip -o @"
                  + pair[0]
                  + " --dropped @"
                  + pair[1]
                  + " @in.jsonl");

      assertThat(r.status()).as(r.err()).isEqualTo(2);
      assertThat(r.err())
          .contains("--dropped " + at(pair[1]) + " and -o " + at(pair[0]) + " are the same file");
      assertThat(dir.resolve("same.tsv")).doesNotExist();
    }
  }

  @Test
  void anOutputInsideTheStateDirectoryIsRefused() throws IOException {
    Cli.Result first =
        run("dedup --key id --on-bad-record skip --state @st -o @out.jsonl " + "@in.jsonl");
    assertThat(first.status()).as(first.err()).isZero();
    byte[] manifest = Files.readAllBytes(dir.resolve("st/MANIFEST.json"));

    for (String output :
        new String[] {
          "st/MANIFEST.json", "st/LOCK", "st/new.jsonl", "st/store/x", "./st/../st/MANIFEST.json"
        }) {
      Cli.Result r =
          run("dedup --key id --on-bad-record skip --state @st -o @" + output + " @in.jsonl");
      assertThat(r.status()).as(r.err()).isEqualTo(2);
      assertThat(r.err()).contains("-o " + at(output) + " is inside --state " + at("st"));
    }
    Cli.Result fresh = run("dedup --key id --state @new-st -o @new-st/out.jsonl @in.jsonl");
    assertThat(fresh.status()).isEqualTo(2);
    assertThat(fresh.err()).contains("is inside --state " + at("new-st"));
    assertThat(dir.resolve("new-st")).doesNotExist();
    assertThat(Files.readAllBytes(dir.resolve("st/MANIFEST.json"))).isEqualTo(manifest);
  }

  @Test
  void anInputInsideTheStateDirectoryIsRefused() throws IOException {
    Files.createDirectories(dir.resolve("st"));
    Files.copy(input, dir.resolve("st/in.jsonl"));
    Cli.Result r =
        run("dedup --key id --on-bad-record skip --state @st -o @out.jsonl " + "@st/in.jsonl");
    assertThat(r.status()).isEqualTo(2);
    assertThat(r.err()).contains("input " + at("st/in.jsonl") + " is inside --state " + at("st"));
  }

  @Test
  void splitRefusesShardFilesThatAreItsInputs() throws IOException {
    Cli.Result first =
        run("split --key id --shards 2 --on-bad-record skip -o @shards " + "@in.jsonl");
    assertThat(first.status()).as(first.err()).isZero();
    Path shard = dir.resolve("shards/shard-00000.jsonl");
    byte[] before = Files.readAllBytes(shard);

    Cli.Result again = run("split --key id --shards 2 -o @shards @shards/shard-00000.jsonl");

    assertThat(again.status()).isEqualTo(2);
    assertThat(again.err()).contains("shard file " + shard + " is the same file as input " + shard);
    assertThat(Files.readAllBytes(shard)).isEqualTo(before);
  }

  @Test
  void reshardRefusesNodeFilesInsideAStateItReads() throws IOException {
    Cli.Result job =
        run("dedup --key id --on-bad-record skip --state @st -o @out.jsonl " + "@in.jsonl");
    assertThat(job.status()).as(job.err()).isZero();

    Cli.Result r = run("reshard --shards 2 -o @st @st");

    assertThat(r.status()).isEqualTo(2);
    assertThat(r.err())
        .contains("node file " + at("st/seen-00000.idx") + " is inside state " + at("st"));
    assertThat(dir.resolve("st/seen-00000.idx")).doesNotExist();
  }

  @Test
  void devicesAreNeverAConflict() {
    Cli.Result r =
        run(
            "dedup --key id --on-bad-record skip -o /dev/null --dropped /dev/null "
                + "--stats-json /dev/null @in.jsonl");
    assertThat(r.status()).as(r.err()).isZero();
  }

  /**
   * Runs {@code idem}, with each path marked {@code @} made absolute under the test directory, as a
   * shell there would see it (the in-process runner cannot change its working directory).
   */
  private Cli.Result run(String commandLine) {
    return Cli.run(
        Arrays.stream(commandLine.split(" "))
            .map(arg -> arg.replace("=@", "=" + dir + "/").replaceFirst("^@", dir + "/"))
            .toArray(String[]::new));
  }

  /** A path relative to the test directory, as {@link #run} passes it. */
  private String at(String relative) {
    return dir + "/" + relative;
  }

  private static List<String> childCommand(String... args) {
    List<String> command =
        new ArrayList<>(
            List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-XX:TieredStopAtLevel=1",
                "-XX:+UseSerialGC",
                "-Xmx256m",
                "-cp",
                System.getProperty("java.class.path"),
                IdemCommand.class.getName()));
    command.addAll(List.of(args));
    return command;
  }

  private static int waitFor(Process p) {
    try {
      if (!p.waitFor(60, java.util.concurrent.TimeUnit.SECONDS)) {
        p.destroyForcibly();
        return -1;
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return -1;
    }
    return p.exitValue();
  }
}
