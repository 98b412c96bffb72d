package dev.idem.engine.run;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** What the clean-up after a checkpoint (and at a resume) keeps of the snapshots. */
class StateDirectorySnapshotsTest {

  @TempDir Path tmp;

  private List<String> afterCleanUp(long keep, long keepDelta) throws IOException {
    Path state = tmp.resolve("state");
    try (StateDirectory dir = StateDirectory.open(state, "MANIFEST.json")) {
      for (String name :
          List.of(
              "filter-4.snap",
              "filter-9.snap",
              "exact-4.snap",
              "delta-3.snap",
              "delta-7.snap",
              "delta-12.snap",
              "delta-14.snap",
              ".filter-13.snap.1.tmp",
              ".delta-13.snap.2.tmp",
              "MANIFEST.json")) {
        Files.writeString(state.resolve(name), name);
      }
      dir.deleteSnapshotsExcept(keep, keepDelta);
    }
    try (Stream<Path> files = Files.list(state)) {
      return files
          .map(p -> p.getFileName().toString())
          .filter(n -> n.endsWith(".snap") || n.endsWith(".tmp"))
          .sorted()
          .toList();
    }
  }

  @Test
  void aCheckpointWithDeltasKeepsItsFullSnapshotAndTheDeltasAfterItUpToItsNewest()
      throws IOException {
    // delta-3 belonged to an older full snapshot, delta-14 to a checkpoint that never committed
    assertThat(afterCleanUp(4, 12))
        .containsExactly("delta-12.snap", "delta-7.snap", "exact-4.snap", "filter-4.snap");
  }

  @Test
  void theDeltaLevelsOfACheckpointAreTheDeltasAfterItsFullSnapshot(@TempDir Path other)
      throws IOException {
    try (StateDirectory dir = StateDirectory.open(other.resolve("s"), "MANIFEST.json")) {
      for (long c : new long[] {3, 7, 12, 14}) {
        Files.writeString(dir.deltaSnapshot(c), "d");
      }
      assertThat(dir.deltaSequences(4, 12)).containsExactly(7L, 12L);
      assertThat(dir.deltaSequences(0, 14)).containsExactly(3L, 7L, 12L, 14L);
      assertThat(dir.deltaSequences(12, 12)).isEmpty();
    }
  }

  @Test
  void aCheckpointWithoutADeltaKeepsNoDelta() throws IOException {
    assertThat(afterCleanUp(9, 0)).containsExactly("filter-9.snap");
  }
}
