package dev.idem.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Stream;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/**
 * Whatever command line a user writes — any command, inputs, outputs and state directories named
 * directly, through {@code ..}, symbolic and hard links, directories and globs — no input file's
 * bytes ever change.
 */
class InputSafetyPropertiesTest {

  /** Names for files in the test directory: inputs, links to them, and new names. */
  private static final List<String> PATHS =
      List.of(
          "a.jsonl",
          "./a.jsonl",
          "sub/../a.jsonl",
          "link-a.jsonl",
          "hard-b.jsonl",
          "b.jsonl",
          "sub/c.jsonl",
          "sub",
          "dangling.jsonl",
          "out-1.jsonl",
          "out-2.jsonl",
          "st",
          "st/MANIFEST.json",
          "st/LOCK",
          "st/x.jsonl",
          "sub/*.jsonl",
          "shards");

  /** A command with {@code IN}, {@code OUT} ... placeholders and the outputs it may have. */
  private static final List<String> COMMANDS =
      List.of(
          "dedup --key id --on-bad-record skip",
          "dedup --whole-line",
          "sort-dedup --key id --on-bad-record skip",
          "split --key id --shards 2 --on-bad-record skip",
          "filter build -n 1000");

  /** Options that name a file written, by command; {@code -o} is always present. */
  private static final Map<String, List<String>> OUTPUT_OPTIONS =
      Map.of(
          "dedup", List.of("--dropped", "--stats-json", "--state", "--on-bad-record quarantine="),
          "sort-dedup", List.of("--stats-json", "--on-bad-record quarantine="),
          "split", List.of("--on-bad-record quarantine="),
          "filter", List.of());

  @Property(tries = 150)
  void noCommandLineChangesAnInput(@ForAll("commandLines") List<String> args) throws IOException {
    Path dir = Files.createTempDirectory("idem-safety-");
    try {
      Map<String, byte[]> files = createInputs(dir);

      Cli.Result r =
          Cli.run(args.stream().map(a -> a.replace("@", dir + "/")).toArray(String[]::new));

      assertThat(r.err()).as(String.join(" ", args)).doesNotContain("internal error");
      for (String input : inputsOf(args)) {
        assertThat(Files.readAllBytes(dir.resolve(input)))
            .as("%s after %s (exit %d: %s)", input, String.join(" ", args), r.status(), r.err())
            .isEqualTo(files.get(input));
      }
    } finally {
      deleteRecursively(dir);
    }
  }

  @Provide
  Arbitrary<List<String>> commandLines() {
    Arbitrary<String> command = Arbitraries.of(COMMANDS);
    Arbitrary<String> path = Arbitraries.of(PATHS);
    Arbitrary<List<String>> inputs = path.list().ofMinSize(1).ofMaxSize(3);
    Arbitrary<List<String>> outputs = path.list().ofSize(5);
    Arbitrary<List<Boolean>> present = Arbitraries.of(true, false).list().ofSize(5);
    return Combinators.combine(command, inputs, path, outputs, present)
        .as(InputSafetyPropertiesTest::commandLine);
  }

  private static List<String> commandLine(
      String command,
      List<String> inputs,
      String output,
      List<String> others,
      List<Boolean> present) {
    List<String> args = new ArrayList<>(List.of(command.split(" ")));
    args.addAll(List.of("-o", "@" + output));
    List<String> options = OUTPUT_OPTIONS.get(args.get(0));
    for (int i = 0; i < options.size(); i++) {
      if (present.get(i)) {
        String option = options.get(i);
        if (option.endsWith("=")) {
          args.removeIf(a -> a.equals("--on-bad-record") || a.equals("skip"));
          args.addAll(List.of("--on-bad-record", "quarantine=@" + others.get(i)));
        } else {
          args.addAll(List.of(option, "@" + others.get(i)));
        }
      }
    }
    inputs.forEach(in -> args.add("@" + in));
    return args;
  }

  /** The files behind the inputs of a command line (the arguments after the last option). */
  private static Set<String> inputsOf(List<String> args) {
    Set<String> files = new TreeSet<>();
    for (int i = args.size() - 1;
        i >= 0 && args.get(i).startsWith("@") && !args.get(i - 1).startsWith("-");
        i--) {
      String name = args.get(i).substring(1);
      files.addAll(
          switch (name) {
            case "a.jsonl", "./a.jsonl", "sub/../a.jsonl", "link-a.jsonl" -> List.of("a.jsonl");
            case "b.jsonl", "hard-b.jsonl" -> List.of("b.jsonl");
            case "sub/c.jsonl", "sub", "sub/*.jsonl" -> List.of("sub/c.jsonl");
            default -> List.<String>of();
          });
    }
    return files;
  }

  /** The input files and the links to them; returns each file's bytes by name. */
  private static Map<String, byte[]> createInputs(Path dir) throws IOException {
    Files.createDirectories(dir.resolve("sub"));
    Map<String, byte[]> files = new LinkedHashMap<>();
    String[] names = {"a.jsonl", "b.jsonl", "sub/c.jsonl"};
    for (int i = 0; i < names.length; i++) {
      StringBuilder sb = new StringBuilder();
      for (int r = 0; r < 50; r++) {
        sb.append(
                r == 7 * (i + 1)
                    ? "{\"id\":\"é\\u00e9\""
                    : "{\"id\":" + (r * (i + 3)) % 40 + ",\"t\":\"" + "ü".repeat(i) + "\"}")
            .append('\n');
      }
      Path f = dir.resolve(names[i]);
      Files.writeString(f, sb);
      files.put(names[i], Files.readAllBytes(f));
    }
    Files.createSymbolicLink(dir.resolve("link-a.jsonl"), dir.resolve("a.jsonl"));
    Files.createLink(dir.resolve("hard-b.jsonl"), dir.resolve("b.jsonl"));
    Files.createSymbolicLink(dir.resolve("dangling.jsonl"), dir.resolve("out-1.jsonl"));
    return files;
  }

  private static void deleteRecursively(Path dir) {
    try (Stream<Path> walk = Files.walk(dir)) {
      walk.sorted(Comparator.reverseOrder())
          .forEach(
              p -> {
                try {
                  Files.delete(p);
                } catch (IOException e) {
                  throw new UncheckedIOException(e);
                }
              });
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
