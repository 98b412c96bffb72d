package dev.idem.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * docs/DESIGN.md, section 7, lists the public API: every public type of every package a library
 * module's {@code module-info.java} exports, under its package. A public type added to an exported
 * package without a line there fails here, and so does a line for a type that is gone.
 */
class PublicApiTest {

  private static final Path ROOT = Path.of("..");
  private static final Pattern EXPORTS = Pattern.compile("(?m)^\\s*exports ([\\w.]+);");

  @Test
  void designListsEveryPublicTypeOfEveryExportedPackage() throws IOException {
    String design = Files.readString(ROOT.resolve("docs/DESIGN.md"));
    String api = design.substring(design.indexOf("## 7. The public API"));
    List<String> expected = new ArrayList<>();
    for (String module : List.of("idem-core", "idem-engine", "idem-redis")) {
      Path sources = ROOT.resolve(module).resolve("src/main/java");
      Matcher m = EXPORTS.matcher(Files.readString(sources.resolve("module-info.java")));
      while (m.find()) {
        String pkg = m.group(1);
        expected.add("**`" + pkg + "`**");
        try (Stream<Path> files = Files.list(sources.resolve(pkg.replace('.', '/')))) {
          for (Path f : files.filter(p -> p.toString().endsWith(".java")).sorted().toList()) {
            String name = f.getFileName().toString().replace(".java", "");
            if (Pattern.compile(
                    "(?m)^public (final |abstract |sealed |non-sealed )*"
                        + "(class|interface|record|enum) "
                        + name
                        + "\\b")
                .matcher(Files.readString(f))
                .find()) {
              expected.add("- `" + name + "`:");
            }
          }
        }
      }
    }
    List<String> listed =
        api.lines().filter(l -> l.startsWith("**`") || l.startsWith("- `")).toList();
    List<String> listedHeads =
        listed.stream()
            .map(l -> l.startsWith("**`") ? l.substring(0, l.indexOf("`**") + 3) : l)
            .map(l -> l.startsWith("- `") ? l.substring(0, l.indexOf("`:") + 2) : l)
            .toList();
    assertThat(listedHeads).containsExactlyElementsOf(expected);
  }
}
