package dev.idem.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;
import picocli.CommandLine.ParameterException;

/**
 * The docs agree with the code where a test can tell: every {@code bin/idem ...} (or {@code idem
 * ...}) command in a code block of README.md and docs/*.md parses with the current options, and the
 * BOM manages the rocksdbjni that the build uses.
 */
class DocsTest {

  private static final Path ROOT = Path.of("..");

  /** Where a command line ends and the shell takes over. */
  private static final Set<String> SHELL = Set.of("|", "||", "&&", ";", "&", "#");

  /** A command found in the docs: where, and its arguments after the launcher. */
  record Found(String where, String line, List<String> args) {}

  static List<Path> docs() throws IOException {
    List<Path> docs = new ArrayList<>(List.of(ROOT.resolve("README.md")));
    try (Stream<Path> s = Files.list(ROOT.resolve("docs"))) {
      s.filter(p -> p.toString().endsWith(".md")).sorted().forEach(docs::add);
    }
    return docs;
  }

  /** The idem commands of the code blocks of {@code doc}. */
  static List<Found> commands(Path doc) throws IOException {
    List<String> lines = Files.readAllLines(doc, StandardCharsets.UTF_8);
    List<Found> found = new ArrayList<>();
    boolean code = false;
    StringBuilder joined = new StringBuilder();
    int start = 0;
    for (int i = 0; i < lines.size(); i++) {
      String line = lines.get(i);
      if (line.strip().startsWith("```")) {
        code = !code;
        continue;
      }
      if (!code) {
        continue;
      }
      if (joined.length() == 0) {
        start = i + 1;
      }
      if (line.endsWith("\\")) {
        joined.append(line, 0, line.length() - 1).append(' ');
        continue;
      }
      String command = joined.append(line).toString();
      joined.setLength(0);
      List<String> words = words(command.startsWith("$ ") ? command.substring(2) : command);
      while (!words.isEmpty() && words.get(0).matches("[A-Z_][A-Z0-9_]*=.*")) {
        words.remove(0); // IDEM_JAVA_OPTS=... bin/idem ...
      }
      if (command.startsWith(" ")
          || words.size() < 2
          || !(words.get(0).equals("bin/idem") || words.get(0).equals("idem"))
          || words.get(1).endsWith(":")
          || words.stream().anyMatch(w -> w.startsWith("["))) {
        // an indented line is output, or a continuation of something else; "idem dedup: ..." is
        // a message; [--option] a synopsis
        continue;
      }
      List<String> args = new ArrayList<>();
      for (String w : words.subList(1, words.size())) {
        if (SHELL.contains(w) || w.startsWith(">") || w.startsWith("<") || w.startsWith("2>")) {
          break;
        }
        args.add(w);
      }
      if (!args.isEmpty() && !args.get(0).equals("install")) {
        Path where = ROOT.toAbsolutePath().normalize().relativize(doc.toAbsolutePath().normalize());
        found.add(new Found(where + ":" + start, command.strip(), args));
      }
    }
    return found;
  }

  /** Shell words: split at spaces, with '...' and "..." quoting. */
  static List<String> words(String line) {
    List<String> words = new ArrayList<>();
    Matcher m = Pattern.compile("'([^']*)'|\"((?:[^\"\\\\]|\\\\.)*)\"|(\\S+)").matcher(line);
    while (m.find()) {
      words.add(m.group(1) != null ? m.group(1) : m.group(2) != null ? m.group(2) : m.group(3));
    }
    return words;
  }

  @Test
  void everyIdemCommandInTheReadmeAndDocsParses() throws IOException {
    List<String> failures = new ArrayList<>();
    int checked = 0;
    for (Path doc : docs()) {
      for (Found f : commands(doc)) {
        CommandLine cli = new CommandLine(IdemCommand.class, new IdemCommand.StandardFactory());
        cli.setCaseInsensitiveEnumValuesAllowed(true);
        try {
          cli.parseArgs(f.args().toArray(String[]::new));
          checked++;
        } catch (ParameterException e) {
          failures.add(f.where() + ": " + f.line() + "\n    " + e.getMessage());
        }
      }
    }
    assertThat(failures).as(String.join("\n", failures)).isEmpty();
    assertThat(checked).isGreaterThan(20);
  }

  @Test
  void theLineFinderFindsCommandsAndStopsAtTheShell() throws IOException {
    Path doc =
        Files.writeString(
            Files.createTempFile("doc", ".md"),
            "text bin/idem dedup --nothing\n```bash\nbin/idem dedup --key id \\\n"
                + "    -o 'a b.jsonl' in.jsonl | head  # comment\n"
                + "  idem dedup --key FIELD  # output, indented\n"
                + "idem dedup: a message\nidem dedup [--key FIELD] INPUT...\n"
                + "IDEM_JAVA_OPTS=-Xmx1g bin/idem plan --distinct 1M > plan.txt\n```\n");
    List<Found> found = commands(doc);
    assertThat(found)
        .extracting(Found::args)
        .containsExactly(
            List.of("dedup", "--key", "id", "-o", "a b.jsonl", "in.jsonl"),
            List.of("plan", "--distinct", "1M"));
    Files.delete(doc);
  }

  @Test
  void theBomManagesTheRocksDbTheBuildUses() throws IOException {
    Pattern version = Pattern.compile("<rocksdb\\.version>([^<]+)</rocksdb\\.version>");
    Matcher parent = version.matcher(Files.readString(ROOT.resolve("pom.xml")));
    Matcher bom = version.matcher(Files.readString(ROOT.resolve("idem-bom/pom.xml")));
    assertThat(parent.find()).isTrue();
    assertThat(bom.find()).isTrue();
    assertThat(bom.group(1)).isEqualTo(parent.group(1));
    assertThat(Files.readString(ROOT.resolve("idem-bom/pom.xml")))
        .contains(
            "<artifactId>rocksdbjni</artifactId>\n        <version>${rocksdb.version}</version>");
  }
}
