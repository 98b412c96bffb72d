package dev.idem.engine.input;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class InputPathsTest {

  @TempDir Path dir;

  @BeforeEach
  void lake() throws IOException {
    for (String f :
        List.of(
            "days/2024-01/a.jsonl",
            "days/2024-01/b.jsonl.gz",
            "days/2024-02/a.jsonl",
            "days/2023-12/a.jsonl",
            "days/2024-02/deep/c.jsonl",
            "days/2024-02/.hidden.jsonl",
            "days/.tmp/x.jsonl",
            "top.jsonl")) {
      Path p = dir.resolve(f);
      Files.createDirectories(p.getParent());
      Files.writeString(p, "{}\n");
    }
  }

  private List<String> expand(String... names) throws IOException {
    return InputPaths.expand(
            java.util.Arrays.stream(names).map(n -> n.equals("-") ? n : dir + "/" + n).toList())
        .stream()
        .map(p -> p.equals("-") ? p : dir.relativize(Path.of(p)).toString())
        .toList();
  }

  @Test
  void globCharactersStandInAnyComponentInPathOrder() throws IOException {
    assertThat(expand("days/2024-*/*.jsonl"))
        .containsExactly("days/2024-01/a.jsonl", "days/2024-02/a.jsonl");
    assertThat(expand("days/*/a.jsonl"))
        .containsExactly("days/2023-12/a.jsonl", "days/2024-01/a.jsonl", "days/2024-02/a.jsonl");
  }

  @Test
  void doubleStarCrossesAnyNumberOfDirectoriesNoneIncluded() throws IOException {
    assertThat(expand("days/**/*.jsonl"))
        .containsExactly(
            "days/2023-12/a.jsonl",
            "days/2024-01/a.jsonl",
            "days/2024-02/a.jsonl",
            "days/2024-02/deep/c.jsonl");
    assertThat(expand("**/top.jsonl")).containsExactly("top.jsonl");
    assertThat(expand("days/**/*.gz")).containsExactly("days/2024-01/b.jsonl.gz");
  }

  @Test
  void aDirectoryIsEveryVisibleFileBelowItInPathOrder() throws IOException {
    assertThat(expand("days"))
        .containsExactly(
            "days/2023-12/a.jsonl",
            "days/2024-01/a.jsonl",
            "days/2024-01/b.jsonl.gz",
            "days/2024-02/a.jsonl",
            "days/2024-02/deep/c.jsonl");
  }

  @Test
  void namesThatMatchNothingAreErrorsAndStandardInputStays() throws IOException {
    assertThat(expand("-", "top.jsonl")).containsExactly("-", "top.jsonl");
    assertThatThrownBy(() -> expand("days/2025-*/*.jsonl"))
        .hasMessageEndingWith("days/2025-*/*.jsonl: no files match");
    assertThatThrownBy(() -> expand("nope.jsonl")).hasMessageEndingWith(": no such file");
    Files.createDirectories(dir.resolve("empty/.only-hidden"));
    assertThatThrownBy(() -> expand("empty")).hasMessageEndingWith("directory has no input files");
  }

  @Test
  void aFileWhoseNameHasGlobCharactersIsItself() throws IOException {
    Files.writeString(dir.resolve("odd[1].jsonl"), "{}\n");
    assertThat(expand("odd[1].jsonl")).containsExactly("odd[1].jsonl");
  }
}
