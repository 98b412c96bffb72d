package dev.idem.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Damage to a state that records progress is refused with a message naming what is damaged, on
 * every attempt: the job never starts over silently. A directory that is not a state is refused
 * before anything is written to it.
 */
class StateDamageTest {

  @TempDir Path dir;

  private Path input;
  private Path state;
  private Path out;
  private String[] job;

  /** A job stopped by a bad record after a checkpoint: a state with progress in it. */
  @BeforeEach
  void stopAJobHalfway() throws IOException {
    input = dir.resolve("in.jsonl");
    StringBuilder in = new StringBuilder();
    for (int i = 0; i < 300; i++) {
      in.append(i == 200 ? "not json" : "{\"id\":" + (i % 150) + "}").append('\n');
    }
    Files.writeString(input, in);
    state = dir.resolve("st");
    out = dir.resolve("out.jsonl");
    job =
        new String[] {
          "dedup",
          "--key",
          "id",
          "--exact-store",
          "rocksdb",
          "--checkpoint-every",
          "10",
          "--state",
          state.toString(),
          "-o",
          out.toString(),
          input.toString(),
          "--on-bad-record"
        };
    assertThat(run("fail").status()).isEqualTo(1);
    assertThat(Files.size(out)).isPositive();
  }

  @Test
  void aStoreWithoutItsCurrentFileIsRefusedEveryTime() throws IOException {
    Files.delete(state.resolve("store/CURRENT"));
    byte[] output = Files.readAllBytes(out);

    for (int attempt = 0; attempt < 2; attempt++) {
      Cli.Result r = run("skip");

      assertThat(r.status()).isEqualTo(1);
      assertThat(r.err())
          .contains(state.resolve("store") + " is damaged (its CURRENT file is " + "missing)")
          .contains("new --state directory")
          .doesNotContain("\tat ");
      assertThat(Files.readAllBytes(out)).isEqualTo(output);
    }
  }

  @Test
  void aMissingStoreIsRefused() throws IOException {
    deleteRecursively(state.resolve("store"));

    Cli.Result r = run("skip");

    assertThat(r.status()).isEqualTo(1);
    assertThat(r.err()).contains(state.resolve("store") + " is damaged (it is missing)");
    assertThat(state.resolve("store")).doesNotExist();
  }

  @Test
  void aStoreWithCheckpointsButNoManifestIsRefused() throws IOException {
    try (Stream<Path> files = Files.list(state)) {
      for (Path f : files.filter(f -> !f.getFileName().toString().equals("store")).toList()) {
        Files.delete(f);
      }
    }

    Cli.Result r = run("skip");

    assertThat(r.status()).isEqualTo(2);
    assertThat(r.err())
        .contains(
            state.resolve("MANIFEST.json")
                + " is missing, but "
                + state.resolve("store")
                + " holds checkpoints");
  }

  @Test
  void aForeignDirectoryIsRefusedBeforeAnythingIsWrittenToIt() throws IOException {
    Path foreign = dir.resolve("photos");
    Files.createDirectories(foreign);
    Files.writeString(foreign.resolve("cat.jpg"), "meow");

    Cli.Result r =
        Cli.run(
            "dedup",
            "--key",
            "id",
            "--state",
            foreign.toString(),
            "-o",
            dir.resolve("o.jsonl").toString(),
            input.toString());

    assertThat(r.status()).isEqualTo(2);
    assertThat(r.err())
        .contains(foreign + " is not empty and has no MANIFEST.json")
        .contains("cat.jpg");
    try (Stream<Path> files = Files.list(foreign)) {
      assertThat(files.map(f -> f.getFileName().toString()).toList()).containsExactly("cat.jpg");
    }
  }

  private Cli.Result run(String policy) {
    String[] args = java.util.Arrays.copyOf(job, job.length + 1);
    args[job.length] = policy;
    return Cli.run(args);
  }

  private static void deleteRecursively(Path p) throws IOException {
    try (Stream<Path> walk = Files.walk(p)) {
      List<Path> all = walk.sorted(Comparator.reverseOrder()).toList();
      for (Path f : all) {
        Files.delete(f);
      }
    }
  }
}
