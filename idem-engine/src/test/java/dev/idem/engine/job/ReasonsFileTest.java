package dev.idem.engine.job;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idem.engine.input.InputFile;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A resumed job keeps the lines of its quarantine reasons file whose records lie before its
 * checkpoint's position, and cuts the rest: what a run that got that far wrote, whatever a kill
 * left after it.
 */
class ReasonsFileTest {

  @TempDir Path dir;

  private static InputFile input(String path) {
    return new InputFile(path, 100, 0, null, null, path);
  }

  private final List<InputFile> inputs =
      List.of(input("a.jsonl"), input("b\tweird.jsonl"), input("a.jsonl"));

  private Path reasons(String... lines) throws IOException {
    return Files.writeString(
        dir.resolve("bad.jsonl.reasons.tsv"), String.join("", lines), StandardCharsets.UTF_8);
  }

  private static final String A2 = "a.jsonl\t2\tmalformed JSON\n";
  private static final String A9 = "a.jsonl\t9\tno field /id\n";
  private static final String B1 = "b weird.jsonl\t1\tno field /id\n";
  private static final String A2_AGAIN = "a.jsonl\t2\tmalformed JSON: the same file twice\n";

  @Test
  void keepsTheLinesBeforeTheCheckpointsPosition() throws IOException {
    Path p = reasons(A2, A9, B1, A2_AGAIN);
    assertThat(ReasonsFile.keptBytes(p, inputs, 0, 0)).isZero();
    assertThat(ReasonsFile.keptBytes(p, inputs, 0, 1)).isZero();
    assertThat(ReasonsFile.keptBytes(p, inputs, 0, 2)).isEqualTo(A2.length());
    assertThat(ReasonsFile.keptBytes(p, inputs, 0, 8)).isEqualTo(A2.length());
    assertThat(ReasonsFile.keptBytes(p, inputs, 0, 9)).isEqualTo((A2 + A9).length());
    assertThat(ReasonsFile.keptBytes(p, inputs, 1, 0)).isEqualTo((A2 + A9).length());
    assertThat(ReasonsFile.keptBytes(p, inputs, 2, 0)).isEqualTo((A2 + A9 + B1).length());
    // the third input is the first file again: its lines come after the second's
    assertThat(ReasonsFile.keptBytes(p, inputs, 2, 5)).isEqualTo(Files.size(p));
  }

  @Test
  void aLineAKillCutShortOrThatNamesNoInputEndsWhatIsKept() throws IOException {
    assertThat(ReasonsFile.keptBytes(reasons(A2, "a.jsonl\t9\tno fi"), inputs, 2, 0))
        .isEqualTo(A2.length());
    assertThat(ReasonsFile.keptBytes(reasons(A2, "c.jsonl\t1\tno field\n", A9), inputs, 2, 0))
        .isEqualTo(A2.length());
    assertThat(ReasonsFile.keptBytes(dir.resolve("missing.tsv"), inputs, 2, 0)).isZero();
  }

  @Test
  void openingForAResumeCutsBackAndAppends() throws IOException {
    Path quarantine = dir.resolve("bad.jsonl");
    Path p = reasons(A2, A9, B1);
    try (ReasonsFile r = ReasonsFile.open(quarantine, true, inputs, 0, 5)) {
      ReasonsFile.write(r.file(), "a.jsonl", 9, "no field /id");
      ReasonsFile.write(r.file(), "b\tweird.jsonl", 1, "no field\n/id");
    }
    // kept what came before line 6 of the first input, then appended
    assertThat(Files.readString(p)).isEqualTo(A2 + A9 + B1);
    try (ReasonsFile r = ReasonsFile.open(quarantine, false, inputs, 0, 5)) {
      assertThat(r.file().length()).isZero();
    }
    assertThat(Files.size(p)).isZero();
  }
}
