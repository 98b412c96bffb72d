package dev.idem.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idem.parquet.ParquetLake;
import dev.idem.parquet.ParquetRows;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The exactly-once protocol of every job on the kernel, at each of its named crash points: the real
 * command is halted there ({@code -Didem.crash-at=STEP:N}, which stops the JVM as a SIGKILL would:
 * no finally block, shutdown hook or buffer flush runs), sometimes halted again in its resume at
 * another step, then run to its end; everything it wrote must equal, byte for byte (row for row for
 * Parquet), what an uninterrupted run writes. A step that stops being reached fails the test (the
 * kill must happen), so the points stay where the protocol's moments are. The dedup job's own
 * points are killed in one JVM by DedupJobProtocolTest, over more shapes of job.
 *
 * <p>Runs in CI as it is (about a minute): one child JVM per kill.
 */
class KillAtEveryStepTest {

  @TempDir Path dir;

  /** The same inputs for every case, and each job's uninterrupted outputs, made once. */
  @TempDir static Path shared;

  private static final java.util.Map<Job, Path> REFERENCES = new java.util.EnumMap<>(Job.class);

  enum Job {
    SORT_DEDUP,
    NEAR_DUP,
    STREAMING_NEAR_DUP,
    SPLIT,
    PARTITIONED,
    PARQUET
  }

  static Stream<Arguments> points() {
    return Stream.of(
        Arguments.of(Job.SORT_DEDUP, "STATE_CREATED", null),
        Arguments.of(Job.SORT_DEDUP, "RUN_SPILLED:2", null),
        Arguments.of(Job.SORT_DEDUP, "CHECKPOINT_COMMITTED:3", "RUN_SPILLED:2"),
        Arguments.of(Job.SORT_DEDUP, "RUNS_MERGED:1", null),
        Arguments.of(Job.SORT_DEDUP, "OUTPUT_WRITTEN", null),
        Arguments.of(Job.NEAR_DUP, "STATE_CREATED", null),
        Arguments.of(Job.NEAR_DUP, "JUDGEMENT_SAVED", null),
        Arguments.of(Job.NEAR_DUP, "CHECKPOINT_COMMITTED:2", null),
        Arguments.of(Job.NEAR_DUP, "DOCUMENT_WRITTEN:5000", "OUTPUTS_SYNCED:2"),
        Arguments.of(Job.NEAR_DUP, "OUTPUTS_SYNCED:3", null),
        Arguments.of(Job.STREAMING_NEAR_DUP, "DOCUMENT_WRITTEN:7000", null),
        Arguments.of(Job.STREAMING_NEAR_DUP, "OUTPUTS_SYNCED:4", "DOCUMENT_WRITTEN:9000"),
        Arguments.of(Job.STREAMING_NEAR_DUP, "CHECKPOINT_COMMITTED:5", null),
        Arguments.of(Job.SPLIT, "STATE_CREATED", null),
        Arguments.of(Job.SPLIT, "RECORD_WRITTEN:9000", "SHARDS_SYNCED:2"),
        Arguments.of(Job.SPLIT, "SHARDS_SYNCED:3", null),
        Arguments.of(Job.SPLIT, "CHECKPOINT_COMMITTED:6", null),
        Arguments.of(Job.PARTITIONED, "PARTITIONS_SYNCED:2", null),
        Arguments.of(Job.PARTITIONED, "PARTITION_JUDGED:1", null),
        Arguments.of(Job.PARTITIONED, "RECORD_HANDLED:20000", "COMMITTED:3"),
        Arguments.of(Job.PARQUET, "PART_CLOSED:2", null),
        // its resume meets only keys seen before: checkpoints without parts to close
        Arguments.of(Job.PARQUET, "CHECKPOINT_COMMITTED:3", "CHECKPOINT_COMMITTED:2"));
  }

  @ParameterizedTest(name = "{0} killed at {1}, its resume at {2}")
  @MethodSource("points")
  void killedAtAStepAndResumedWritesWhatAnUninterruptedRunWrites(Job job, String step, String again)
      throws Exception {
    Path in = job == Job.PARQUET ? lake() : input();
    Path reference = reference(job, in);
    Path resumed = dir.resolve("resumed");
    killAt(step, command(job, in, resumed, true));
    if (again != null) {
      killAt(again, command(job, in, resumed, true));
    }
    Cli.Result end = Cli.run(command(job, in, resumed, true));
    assertThat(end.status()).as(end.err()).isZero();
    assertSameOutputs(job, reference, resumed);
  }

  /** What an uninterrupted run of {@code job} writes, without a state; made once per job. */
  private Path reference(Job job, Path in) throws IOException {
    Path made = REFERENCES.get(job);
    if (made == null) {
      made = shared.resolve("reference-" + job);
      Cli.Result r = Cli.run(command(job, in, made, false));
      assertThat(r.status()).as(r.err()).isZero();
      REFERENCES.put(job, made);
    }
    return made;
  }

  private static void killAt(String step, String[] args) throws Exception {
    Process p =
        ChildProcessTest.builder("512m", List.of("-Didem.crash-at=" + step), args)
            .redirectOutput(ProcessBuilder.Redirect.DISCARD)
            .start();
    String err = new String(p.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(p.waitFor(120, TimeUnit.SECONDS)).isTrue();
    assertThat(p.exitValue()).as("halted at " + step + ": " + err).isEqualTo(137);
  }

  /**
   * The job's command writing into {@code out} (a directory), with a state when {@code durable}.
   */
  private String[] command(Job job, Path in, Path out, boolean durable) throws IOException {
    Files.createDirectories(out);
    List<String> a = new ArrayList<>();
    switch (job) {
      case SORT_DEDUP ->
          a.addAll(
              List.of("sort-dedup", "--key", "id", "--memory", "1m", "-o", file(out, "out.jsonl")));
      case NEAR_DUP, STREAMING_NEAR_DUP -> {
        a.addAll(List.of("near-dup", "--content", "text", "--checkpoint-every", "1000"));
        a.addAll(List.of("-o", file(out, "out.jsonl"), "--dropped", file(out, "dropped.tsv")));
        a.addAll(List.of("--clusters", file(out, "clusters.tsv")));
        if (job == Job.STREAMING_NEAR_DUP) {
          a.add("--streaming");
        }
      }
      case SPLIT ->
          a.addAll(
              List.of(
                  "split",
                  "--key",
                  "id",
                  "--shards",
                  "3",
                  "--checkpoint-every",
                  "500",
                  "-o",
                  file(out, "shards")));
      case PARTITIONED ->
          a.addAll(
              List.of(
                  "dedup",
                  "--key",
                  "id",
                  "--exact-store",
                  "partitioned",
                  "--checkpoint-every",
                  "200",
                  "-o",
                  file(out, "out.jsonl"),
                  "--dropped",
                  file(out, "dropped.tsv")));
      case PARQUET ->
          a.addAll(
              List.of(
                  "dedup",
                  "--key",
                  "meta.url",
                  "--checkpoint-every",
                  "1000",
                  "-o",
                  file(out, "parts")));
    }
    if (durable && job != Job.SPLIT) {
      a.addAll(List.of("--state", file(out, "state")));
    }
    a.add("-q");
    a.add(in.toString());
    return a.toArray(String[]::new);
  }

  private static String file(Path dir, String name) {
    return dir.resolve(name).toString();
  }

  private static void assertSameOutputs(Job job, Path reference, Path resumed) throws IOException {
    switch (job) {
      case SPLIT -> {
        for (int i = 0; i < 3; i++) {
          String shard = "shards/shard-0000" + i + ".jsonl";
          assertSame(reference.resolve(shard), resumed.resolve(shard));
        }
      }
      case PARQUET ->
          assertThat(ParquetRows.readParts(resumed.resolve("parts")))
              .containsExactlyElementsOf(ParquetRows.readParts(reference.resolve("parts")));
      default -> {
        try (Stream<Path> files = Files.list(reference)) {
          for (Path f : files.filter(Files::isRegularFile).toList()) {
            assertSame(f, resumed.resolve(f.getFileName().toString()));
          }
        }
      }
    }
  }

  private static void assertSame(Path expected, Path actual) throws IOException {
    assertThat(Files.readAllBytes(actual))
        .as(actual.toString())
        .isEqualTo(Files.readAllBytes(expected));
  }

  /** 30,000 JSON Lines records: repeating ids, repeating and near-repeating texts. */
  private static Path input() throws IOException {
    Path in = shared.resolve("in.jsonl");
    if (Files.exists(in)) {
      return in;
    }
    StringBuilder sb = new StringBuilder();
    for (int i = 0; i < 30_000; i++) {
      int doc = i % 11_000;
      sb.append(
          String.format(
              "{\"id\":\"k%06d\",\"n\":%d,\"text\":\"%s\"}%n",
              i % 19_000,
              i,
              ("w" + doc % 97 + " x" + doc % 89 + " y" + doc + " z" + (i % 3)).repeat(2)));
    }
    Files.writeString(in, sb, StandardCharsets.US_ASCII);
    return in;
  }

  /** A lake of 8 files of 1,500 rows, a row group each, keys repeating across files. */
  private static Path lake() throws IOException {
    Path lake = shared.resolve("lake");
    if (!Files.exists(lake)) {
      ParquetLake.write(Files.createDirectories(lake), 17, 8, 1500, 500, 0);
    }
    return lake;
  }
}
