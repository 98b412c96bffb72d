package dev.idem.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The command reference in docs/cli/ is the picocli model's help, page for page: a change to a
 * command's options, descriptions or examples fails this test until the pages are written again
 * ({@code -Didem.docs.write=true} writes them).
 */
class CommandReferenceTest {

  private static final Path DOCS = Path.of("..", "docs", "cli");

  @Test
  void theCommittedPagesAreThoseOfTheModel() throws IOException {
    Map<String, String> pages = CommandReference.pages();
    if (Boolean.getBoolean("idem.docs.write")) {
      try (Stream<Path> old = Files.list(Files.createDirectories(DOCS))) {
        for (Path p : old.toList()) {
          if (!pages.containsKey(p.getFileName().toString())) {
            Files.delete(p);
          }
        }
      }
      CommandReference.write(DOCS);
    }
    assertThat(pages).containsKeys("README.md", "idem.md", "idem-dedup.md", "idem-filter-build.md");
    for (Map.Entry<String, String> page : pages.entrySet()) {
      Path file = DOCS.resolve(page.getKey());
      assertThat(file).as("docs/cli/%s is missing: %s", page.getKey(), HOW).exists();
      assertThat(Files.readString(file, StandardCharsets.UTF_8))
          .as("docs/cli/%s differs from the command's model: %s", page.getKey(), HOW)
          .isEqualTo(page.getValue());
    }
    try (Stream<Path> files = Files.list(DOCS)) {
      Set<String> names = files.map(p -> p.getFileName().toString()).collect(Collectors.toSet());
      assertThat(names).as("pages of no command: %s", HOW).isEqualTo(pages.keySet());
    }
  }

  @Test
  void eachPageIsTheCommandsHelpWithItsExamples() {
    Map<String, String> pages = CommandReference.pages();
    assertThat(pages.get("idem-dedup.md"))
        .contains("Usage: idem dedup")
        .contains("--exact-store=WHERE")
        .contains("Examples:\n  # the first event of each id");
    assertThat(pages.get("README.md")).contains("| [`idem sort-dedup`](idem-sort-dedup.md) |");
  }

  private static final String HOW =
      "rewrite docs/cli with ./mvnw -pl idem-cli -am test -Dtest=CommandReferenceTest "
          + "-Dsurefire.failIfNoSpecifiedTests=false -Didem.docs.write=true";
}
