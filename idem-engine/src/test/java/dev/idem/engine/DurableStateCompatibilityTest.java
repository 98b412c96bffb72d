package dev.idem.engine;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A durable deduplicator's state written by an earlier idem opens with this build: its committed
 * keys, its last token, and not the marks made after that commit.
 *
 * <p>The state in {@code src/test/resources/states/v1/st-library} was made, before the job kernel,
 * by {@code Idem.deduplicator().expectedKeys(10_000).state(dir).open()}: 3,000 {@code
 * firstSeen("key-" + i % 2000)}, a {@code commit("pos=N")} every 500, then 100 more keys ({@code
 * key-3000} to {@code key-3099}) marked and never committed before the process halted.
 */
class DurableStateCompatibilityTest {

  private static final Path STATE = Path.of("src/test/resources/states/v1/st-library");

  @TempDir Path dir;

  @Test
  void aStateOfVersionOneOpensWithItsCommittedKeysAndToken() throws IOException {
    Path state = dir.resolve("st");
    copy(STATE, state);
    try (DurableDeduplicator d = Idem.deduplicator().expectedKeys(10_000).state(state).open()) {
      assertThat(new String(d.lastCommittedToken(), StandardCharsets.UTF_8)).isEqualTo("pos=3000");
      for (int i = 0; i < 2000; i++) {
        assertThat(d.contains("key-" + i)).as("key-" + i).isTrue();
      }
      for (int i = 3000; i < 3100; i++) {
        assertThat(d.contains("key-" + i)).as("key-" + i + ", never committed").isFalse();
      }
      assertThat(d.firstSeen("key-5")).isFalse();
      assertThat(d.firstSeen("key-4000")).isTrue();
    }
  }

  private static void copy(Path from, Path to) throws IOException {
    try (Stream<Path> walk = Files.walk(from)) {
      for (Path p : walk.sorted(Comparator.naturalOrder()).toList()) {
        Path target = to.resolve(from.relativize(p).toString());
        if (Files.isDirectory(p)) {
          Files.createDirectories(target);
        } else {
          Files.copy(p, target);
        }
      }
    }
  }
}
