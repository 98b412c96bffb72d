package dev.idem.parquet;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A Parquet job's state written by an earlier idem resumes with this build to the output an
 * uninterrupted run writes, so a layout change cannot strand a half-done job.
 *
 * <p>The state in {@code src/test/resources/states/v1} was made, before the job kernel, by {@code
 * idem dedup --key id --state D/st-parquet --checkpoint-every 500 -o D/out-parquet D/lake/} with D
 * = {@value #MADE_IN}, over three files of 2,000 rows in row groups of 500 (ids from 4,000, written
 * by pyarrow), stopped by a null key in row 1,200 of the third file after its checkpoints. Its
 * checkpoint, inside the state's store, names those absolute paths, so the test puts its copy
 * there.
 */
class ParquetStateCompatibilityTest {

  private static final Path STATES = Path.of("src/test/resources/states/v1");

  private static final String MADE_IN = "/tmp/idem-parquet-state-v1";

  private final Path dir = Path.of(MADE_IN);

  @BeforeEach
  @AfterEach
  void clear() throws IOException {
    if (Files.exists(dir)) {
      try (Stream<Path> walk = Files.walk(dir)) {
        for (Path p : walk.sorted(Comparator.reverseOrder()).toList()) {
          Files.delete(p);
        }
      }
    }
  }

  @Test
  void aStateOfVersionOneResumesToTheUninterruptedOutput() throws IOException {
    copy(STATES, dir);
    ParquetDedupResult resumed = job(dir.resolve("st-parquet"), dir.resolve("out-parquet"));
    assertThat(resumed.resumed()).isTrue();
    ParquetDedupResult fresh = job(null, dir.resolve("fresh"));
    assertThat(ParquetRows.readParts(dir.resolve("out-parquet")))
        .isEqualTo(ParquetRows.readParts(dir.resolve("fresh")))
        .hasSize((int) fresh.kept());
  }

  private ParquetDedupResult job(Path state, Path out) throws IOException {
    return ParquetDedup.builder()
        .inputs(List.of(dir.resolve("lake").toString()))
        .key(List.of("id"))
        .output(out)
        .state(state)
        .checkpointRows(500)
        .onNullKey(ParquetDedup.NullKeys.SKIP)
        .run();
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
