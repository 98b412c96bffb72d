package dev.idem.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * No main class of any module is over {@value #MOST_LINES} lines unless its Javadoc says why, in a
 * paragraph that starts {@value #REASON}: a long class is a choice written down, not a drift.
 */
class ClassSizeTest {

  static final int MOST_LINES = 400;
  static final String REASON = "<p>Why it is long:";

  @Test
  void everyLongClassSaysWhyItIsLong() throws IOException {
    List<String> unexplained = new ArrayList<>();
    List<Path> checked = new ArrayList<>();
    try (Stream<Path> modules = Files.list(Path.of(".."))) {
      for (Path module :
          modules.filter(m -> Files.isDirectory(m.resolve("src/main/java"))).toList()) {
        try (Stream<Path> files = Files.walk(module.resolve("src/main/java"))) {
          for (Path f : files.filter(p -> p.toString().endsWith(".java")).toList()) {
            checked.add(f);
            List<String> lines = Files.readAllLines(f);
            if (lines.size() > MOST_LINES && !String.join("\n", lines).contains(REASON)) {
              unexplained.add(f + " (" + lines.size() + " lines)");
            }
          }
        }
      }
    }
    assertThat(checked).as("the sources were found").hasSizeGreaterThan(100);
    assertThat(unexplained)
        .as("split these, or say in their Javadoc, after '" + REASON + "', why not")
        .isEmpty();
  }
}
