package dev.idem.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.NullNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.TextNode;
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

  /**
   * The states of the other jobs, made before the job kernel over {@code jobs/in.jsonl} (6,001
   * lines: JSON objects with {@code id}, {@code n}, {@code text}, half of them with non-ASCII text
   * escaped, a malformed line at 5,501), each stopped mid-run:
   *
   * <ul>
   *   <li>{@code st-sort}: {@code sort-dedup --key id --memory 1m --state st-sort -o
   *       out-sort.jsonl}, stopped by the bad line after three runs;
   *   <li>{@code st-neardup}: {@code near-dup --content text --streaming --state st-neardup
   *       --checkpoint-every 100 -o out-neardup.jsonl}, stopped by the bad line;
   *   <li>{@code split-out}: {@code split --key id --shards 4 --checkpoint-every 500 -o split-out},
   *       stopped by the bad line;
   *   <li>{@code st-partitioned}: {@code dedup --key id --exact-store partitioned
   *       --checkpoint-every 500 --state st-partitioned -o out-partitioned.jsonl}, stopped by the
   *       bad line in its second read.
   * </ul>
   *
   * Each resumes with {@code --on-bad-record skip} and ends with an uninterrupted run's output.
   */
  @ParameterizedTest
  @ValueSource(strings = {"sort-dedup", "near-dup", "split", "partitioned"})
  void theStatesOfEveryJobResumeToTheUninterruptedOutput(String job) throws IOException {
    Path jobs = dir.resolve("jobs");
    copy(STATES.resolve("jobs"), jobs);
    Path in = jobs.resolve("in.jsonl");
    repointAll(jobs, in);
    List<String> resume;
    List<String> fresh;
    Path out;
    Path reference = jobs.resolve("reference");
    switch (job) {
      case "sort-dedup" -> {
        out = jobs.resolve("out-sort.jsonl");
        List<String> common = List.of("sort-dedup", "--key", "id", "--memory", "1m");
        resume = concat(common, "--state", jobs.resolve("st-sort"), "-o", out);
        fresh = concat(common, "-o", reference);
      }
      case "near-dup" -> {
        out = jobs.resolve("out-neardup.jsonl");
        List<String> common =
            List.of("near-dup", "--content", "text", "--streaming", "--checkpoint-every", "100");
        resume = concat(common, "--state", jobs.resolve("st-neardup"), "-o", out);
        fresh = concat(common, "-o", reference);
      }
      case "split" -> {
        out = jobs.resolve("split-out");
        List<String> common = List.of("split", "--key", "id", "--shards", "4");
        resume = concat(concat(common, "--checkpoint-every", "500"), "-o", out);
        fresh = concat(common, "-o", reference);
      }
      default -> {
        out = jobs.resolve("out-partitioned.jsonl");
        List<String> common = List.of("dedup", "--key", "id", "--checkpoint-every", "500");
        resume =
            concat(
                concat(common, "--exact-store", "partitioned"),
                "--state",
                jobs.resolve("st-partitioned"),
                "-o",
                out);
        fresh = concat(common, "-o", reference);
      }
    }
    Cli.Result resumed = Cli.run(args(resume, in));
    assertThat(resumed.status()).as(resumed.err()).isZero();
    assertThat(resumed.err()).doesNotContain("warning");
    Cli.Result uninterrupted = Cli.run(args(fresh, in));
    assertThat(uninterrupted.status()).as(uninterrupted.err()).isZero();
    if (job.equals("split")) {
      for (int i = 0; i < 4; i++) {
        String shard = "shard-0000" + i + ".jsonl";
        assertThat(Files.readAllBytes(out.resolve(shard)))
            .as(shard)
            .isEqualTo(Files.readAllBytes(reference.resolve(shard)));
      }
    } else {
      assertThat(Files.readAllBytes(out)).isEqualTo(Files.readAllBytes(reference));
    }
  }

  private static List<String> concat(List<String> head, Object... more) {
    List<String> all = new java.util.ArrayList<>(head);
    for (Object o : more) {
      all.add(o.toString());
    }
    return all;
  }

  private static String[] args(List<String> command, Path in) {
    List<String> all = concat(command, "--on-bad-record", "skip", in);
    return all.toArray(String[]::new);
  }

  /**
   * Points what the states' JSON files record of the machine that made them (in /tmp/golden, with
   * the input named {@code in.jsonl}) at the copies: paths, and file keys, which a copy does not
   * keep. Every other value stays as written.
   */
  private static void repointAll(Path jobs, Path in) throws IOException {
    ObjectMapper json = new ObjectMapper();
    List<Path> files;
    try (Stream<Path> walk = Files.walk(jobs)) {
      files = walk.filter(f -> f.toString().endsWith(".json")).toList();
    }
    for (Path f : files) {
      JsonNode root = json.readTree(f.toFile());
      json.writeValue(f.toFile(), repointed(root, jobs, in));
    }
  }

  private static JsonNode repointed(JsonNode node, Path jobs, Path in) {
    if (node.isTextual()) {
      String v = node.asText();
      if (v.equals("in.jsonl") || v.startsWith("in.jsonl (")) {
        v = in + v.substring("in.jsonl".length());
      }
      return TextNode.valueOf(v.replace("/tmp/golden/", jobs + "/"));
    }
    if (node.isObject()) {
      ObjectNode o = (ObjectNode) node;
      List<String> names = new java.util.ArrayList<>();
      o.fieldNames().forEachRemaining(names::add);
      for (String name : names) {
        o.set(name, name.equals("file_key") ? NullNode.instance : repointed(o.get(name), jobs, in));
      }
    } else if (node.isArray()) {
      ArrayNode a = (ArrayNode) node;
      for (int i = 0; i < a.size(); i++) {
        a.set(i, repointed(a.get(i), jobs, in));
      }
    }
    return node;
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
