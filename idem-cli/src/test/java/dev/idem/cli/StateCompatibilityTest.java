package dev.idem.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * States written by an earlier idem resume: checked-in state directories (under {@code
 * src/test/resources/states/v1}), each of a job stopped by a bad record after its checkpoints,
 * resume with this build and finish with the output an uninterrupted run writes. Like hash4j's
 * state-compatibility tests, this fails when the state's layout changes incompatibly, which a round
 * trip through one version cannot show.
 *
 * <p>The states were made by {@code idem dedup --key id --checkpoint-every 100 --state st-TIER
 * --exact-store TIER [--expected 2000 --dropped dropped-memory.tsv] -o out-TIER.jsonl in.jsonl}
 * (memory: with the extra options) at the commit that added this test. The only edits after copying
 * are the paths the manifest records, which name the machine that made them.
 */
class StateCompatibilityTest {

  private static final Path STATES = Path.of("src/test/resources/states/v1");

  @TempDir Path dir;

  @ParameterizedTest
  @ValueSource(strings = {"memory", "rocksdb"})
  void aStateOfVersionOneResumesToTheUninterruptedOutput(String tier) throws IOException {
    copy(STATES, dir);
    Path state = dir.resolve("st-" + tier);
    Path in = dir.resolve("in.jsonl");
    Path out = dir.resolve("out-" + tier + ".jsonl");
    Path dropped = dir.resolve("dropped-" + tier + ".tsv");
    boolean memory = tier.equals("memory");
    repointManifest(state.resolve("MANIFEST.json"), in, out, memory ? dropped : null);
    List<String> options =
        memory
            ? List.of(
                "--exact-store", "memory", "--expected", "2000", "--dropped", dropped.toString())
            : List.of("--exact-store", "rocksdb");

    Cli.Result resumed = Cli.run(command(state, options, out, in));

    assertThat(resumed.status()).as(resumed.err()).isZero();
    assertThat(resumed.err()).doesNotContain("warning");
    Path fresh = dir.resolve("fresh");
    Files.createDirectories(fresh);
    List<String> freshOptions =
        memory
            ? List.of(
                "--exact-store",
                "memory",
                "--expected",
                "2000",
                "--dropped",
                fresh.resolve("dropped.tsv").toString())
            : options;
    Cli.Result uninterrupted =
        Cli.run(command(fresh.resolve("st"), freshOptions, fresh.resolve("out.jsonl"), in));
    assertThat(uninterrupted.status()).as(uninterrupted.err()).isZero();
    assertThat(Files.readAllBytes(out)).isEqualTo(Files.readAllBytes(fresh.resolve("out.jsonl")));
    if (memory) {
      // the old run named its input as given (in.jsonl), the new ones by its copy's path
      assertThat(Files.readString(dropped).replace(in.toString(), "in.jsonl"))
          .isEqualTo(
              Files.readString(fresh.resolve("dropped.tsv")).replace(in.toString(), "in.jsonl"));
    }
  }

  private static String[] command(Path state, List<String> options, Path out, Path in) {
    Stream<String> args =
        Stream.of(
                Stream.of(
                    "dedup",
                    "--key",
                    "id",
                    "--checkpoint-every",
                    "100",
                    "--state",
                    state.toString()),
                options.stream(),
                Stream.of("-o", out.toString(), "--on-bad-record", "skip", in.toString()))
            .flatMap(s -> s);
    return args.toArray(String[]::new);
  }

  /** Points the manifest's recorded paths at the copies; every other field stays as written. */
  private static void repointManifest(Path manifest, Path in, Path out, Path dropped)
      throws IOException {
    ObjectMapper json = new ObjectMapper();
    ObjectNode m = (ObjectNode) json.readTree(manifest.toFile());
    ((ObjectNode) ((ArrayNode) m.get("inputs")).get(0)).put("path", in.toString());
    m.put("output", out.toString());
    if (dropped != null) {
      m.put("dropped", dropped.toString());
    }
    json.writerWithDefaultPrettyPrinter().writeValue(manifest.toFile(), m);
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
