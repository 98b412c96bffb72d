package dev.idem.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;
import picocli.CommandLine.Help;
import picocli.CommandLine.Model.CommandSpec;

/**
 * Every command's {@code --help} (and so its man page, made from the same model) ends with
 * examples, and every example runs: each command's examples, in order, in a directory of small
 * inputs, through bash with {@code idem} on the PATH, each exiting 0.
 */
class ExamplesTest {

  @TempDir Path dir;

  /** Every command of idem's model, the root first, subcommands after their parent. */
  static List<CommandSpec> commands() {
    List<CommandSpec> all = new ArrayList<>();
    add(new CommandLine(IdemCommand.class, new IdemCommand.StandardFactory()), all);
    return all;
  }

  private static void add(CommandLine c, List<CommandSpec> all) {
    all.add(c.getCommandSpec());
    for (CommandLine sub : c.getSubcommands().values()) {
      add(sub, all);
    }
  }

  /** The example command lines of {@code spec}'s footer, continuation lines joined; no comments. */
  static List<String> examples(CommandSpec spec) {
    List<String> commands = new ArrayList<>();
    StringBuilder pending = new StringBuilder();
    for (String line : spec.usageMessage().footer()) {
      String l = line.strip();
      if (l.isEmpty() || l.startsWith("#")) {
        continue;
      }
      if (l.endsWith("\\")) {
        pending.append(l, 0, l.length() - 1);
        continue;
      }
      commands.add(pending.append(l).toString().replace("%%", "%"));
      pending.setLength(0);
    }
    return commands;
  }

  @Test
  void everyCommandsHelpEndsWithExamplesOfItself() {
    List<CommandSpec> commands = commands();
    assertThat(commands).hasSizeGreaterThan(10);
    for (CommandSpec spec : commands) {
      String help = spec.commandLine().getUsageMessage(Help.Ansi.OFF);
      assertThat(help).as(spec.qualifiedName()).contains("\nExamples:\n");
      List<String> examples = examples(spec);
      assertThat(examples).as(spec.qualifiedName()).isNotEmpty();
      String self = spec.qualifiedName() + (spec.parent() == null ? " " : "");
      assertThat(examples)
          .as("%s has an example of itself", spec.qualifiedName())
          .anyMatch(e -> e.startsWith(self) || e.contains("(" + self));
      for (String line : spec.usageMessage().footer()) {
        assertThat(line.replace("%%", "%").length())
            .as("fits an 80-column terminal: %s", line)
            .isLessThanOrEqualTo(79);
      }
    }
  }

  @TestFactory
  Stream<DynamicTest> everyExampleRuns() throws IOException {
    Path bin = Files.createDirectories(dir.resolve("bin"));
    Path idem = bin.resolve("idem");
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    Files.writeString(
        idem,
        "#!/bin/sh\nexec '"
            + java
            + "' -XX:TieredStopAtLevel=1 -XX:+UseSerialGC -Xmx512m -Xshare:auto -cp '"
            + System.getProperty("java.class.path")
            + "' "
            + IdemCommand.class.getName()
            + " \"$@\"\n");
    Files.setPosixFilePermissions(idem, PosixFilePermissions.fromString("rwxr-xr-x"));
    return commands().stream()
        .map(
            spec ->
                DynamicTest.dynamicTest(
                    spec.qualifiedName(), () -> runExamples(spec, bin, examples(spec))));
  }

  private void runExamples(CommandSpec spec, Path bin, List<String> examples) throws Exception {
    Path work = Files.createDirectories(dir.resolve(spec.qualifiedName().replace(' ', '-')));
    fixtures(work);
    for (String example : examples) {
      ProcessBuilder b =
          new ProcessBuilder("bash", "-c", "set -e -o pipefail; " + example)
              .directory(work.toFile())
              .redirectOutput(work.resolve(".stdout").toFile())
              .redirectError(work.resolve(".stderr").toFile())
              .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")));
      b.environment().put("PATH", bin + File.pathSeparator + System.getenv("PATH"));
      b.environment().put("HOME", work.toString());
      Process p = b.start();
      boolean ended = p.waitFor(5, TimeUnit.MINUTES);
      if (!ended) {
        p.destroyForcibly().waitFor();
      }
      String err = Files.readString(work.resolve(".stderr"));
      assertThat(ended && p.exitValue() == 0)
          .as("%s%n%s", example, err + Files.readString(work.resolve(".stdout")))
          .isTrue();
      assertThat(err).as(example).doesNotContain("Exception");
    }
  }

  /** The small inputs the examples name. */
  static void fixtures(Path work) throws IOException {
    Path examples = Files.createDirectories(work.resolve("examples"));
    for (String name : List.of("clicks.jsonl", "articles.jsonl")) {
      Files.copy(Path.of("..", "examples", name), examples.resolve(name));
    }
    StringBuilder urls = new StringBuilder();
    StringBuilder csv = new StringBuilder("url,n\n");
    for (int i = 0; i < 2000; i++) {
      String url = "https://example.com/" + (char) ('a' + i % 26) + (i % 700);
      urls.append(url).append('\n');
      csv.append(url).append(',').append(i).append('\n');
    }
    urls.append("https://example.com/a\n");
    csv.append("\"https://example.com/unclosed,1\n"); // a bad record, quarantined
    Files.writeString(work.resolve("urls.txt"), urls, StandardCharsets.UTF_8);
    Files.writeString(work.resolve("urls.csv"), csv, StandardCharsets.UTF_8);
    Files.writeString(
        work.resolve("more-urls.txt"), "https://example.com/a\nhttps://example.com/zzz\n");
    Files.createDirectories(work.resolve(".local/share/bash-completion/completions"));
    // documents with a repeated footer, and an evaluation set one of them quotes
    String question = "which river runs through the old town and under the seven stone bridges";
    StringBuilder docs = new StringBuilder();
    for (int i = 0; i < 50; i++) {
      docs.append("{\"id\":")
          .append(i)
          .append(",\"text\":\"Page ")
          .append(i)
          .append(" says something of its own, number ")
          .append(i * 7)
          .append(i == 3 ? ".\\nQuiz: " + question : "")
          .append(".\\nShare this page with your friends and family today.\"}\n");
    }
    Files.writeString(
        Files.createDirectories(work.resolve("corpus")).resolve("part-0.jsonl"), docs);
    Files.writeString(
        Files.createDirectories(work.resolve("evals")).resolve("quiz.jsonl"),
        "{\"id\":\"q1\",\"text\":\"" + question + "?\"}\n");
  }
}
