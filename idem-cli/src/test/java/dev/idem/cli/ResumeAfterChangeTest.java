package dev.idem.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.FileTime;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every resumable job, killed at a named step of its protocol ({@code -Didem.crash-at}, which halts
 * the real command there as a SIGKILL would), then faced with what a hostile user does between the
 * kill and the resume: an input edited in place (same size, a new modification time) in the part
 * the job already read, or in a part whose verdicts were already worked out; a state file the
 * resume needs, deleted or damaged; an output changed before its checkpoint. Each resume is refused
 * with a message naming the file and what changed, or writes what an uninterrupted run writes —
 * never other output with exit status 0.
 */
class ResumeAfterChangeTest {

  @TempDir Path dir;

  private static final int LINES = 30_000;

  /** JSON Lines with repeating ids and texts, about 2.6 MB: a dozen batches of records. */
  private Path input() throws IOException {
    StringBuilder sb = new StringBuilder();
    for (int i = 0; i < LINES; i++) {
      int doc = i % 11_000;
      sb.append(
          String.format(
              "{\"id\":\"k%06d\",\"n\":\"%05d\",\"text\":\"%s\"}%n",
              i % 19_000,
              i,
              ("word" + doc % 97 + " other" + doc % 89 + " more" + doc + " ").repeat(3).strip()));
    }
    Path in = dir.resolve("in.jsonl");
    Files.writeString(in, sb, StandardCharsets.US_ASCII);
    return in;
  }

  /**
   * Runs {@code args} in a child JVM that halts at {@code step} (as a kill would); 137 expected.
   */
  private static void killAt(String step, List<String> args) throws Exception {
    Process p =
        ChildProcessTest.builder(
                "512m", List.of("-Didem.crash-at=" + step), args.toArray(String[]::new))
            .redirectOutput(ProcessBuilder.Redirect.DISCARD)
            .start();
    String err = new String(p.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(p.waitFor(120, TimeUnit.SECONDS)).isTrue();
    assertThat(p.exitValue()).as("killed at " + step + ": " + err).isEqualTo(137);
  }

  /**
   * Rewrites in place the {@code n} field of line {@code line} (0-based): same size, other bytes,
   * and a modification time 5 s later, as an editor that saves in place leaves it.
   */
  private static void editLine(Path in, int line) throws IOException {
    byte[] content = Files.readAllBytes(in);
    int at = 0;
    for (int i = 0; i < line; i++) {
      while (content[at] != '\n') {
        at++;
      }
      at++;
    }
    int n = at + "{\"id\":\"k000000\",\"n\":\"".length();
    FileTime before = Files.getLastModifiedTime(in);
    try (FileChannel ch = FileChannel.open(in, StandardOpenOption.WRITE)) {
      ch.write(ByteBuffer.wrap("99999".getBytes(StandardCharsets.US_ASCII)), n);
    }
    Files.setLastModifiedTime(in, FileTime.fromMillis(before.toMillis() + 5000));
  }

  private static void assertRefused(Cli.Result r, Path in) {
    assertThat(r.status()).as(r.err()).isNotZero();
    assertThat(r.err()).contains(in.toString()).containsPattern("changed|differ");
  }

  private List<String> partitioned(Path in) {
    return List.of(
        "dedup",
        "--key",
        "id",
        "--exact-store",
        "partitioned",
        "--checkpoint-every",
        "100",
        "--state",
        dir.resolve("st").toString(),
        "-o",
        dir.resolve("out.jsonl").toString(),
        in.toString());
  }

  @Test
  void partitionedKilledInItsFirstReadRefusesAnInputEditedInThePartRead() throws Exception {
    Path in = input();
    killAt("PARTITIONS_SYNCED:2", partitioned(in));
    editLine(in, 10);
    assertRefused(Cli.run(partitioned(in).toArray(String[]::new)), in);
  }

  @Test
  void partitionedKilledInItsSecondReadRefusesAnInputEditedFurtherOn() throws Exception {
    Path in = input();
    killAt("COMMITTED:5", partitioned(in)); // the write pass's fifth checkpoint
    editLine(in, LINES - 10); // not read again yet: its verdict was worked out by the first read
    assertRefused(Cli.run(partitioned(in).toArray(String[]::new)), in);
  }

  @Test
  void partitionedPlanWithoutItsVerdictBitsIsMadeAgainNotTrustedEmpty() throws Exception {
    Path in = input();
    killAt("COMMITTED:5", partitioned(in));
    Files.delete(dir.resolve("st/plan/duplicates.bits"));
    Cli.Result resumed = Cli.run(partitioned(in).toArray(String[]::new));
    assertThat(resumed.status()).as(resumed.err()).isZero();
    assertThat(resumed.err()).contains("duplicates.bits").contains("made again");
    assertThat(Files.readAllBytes(dir.resolve("out.jsonl"))).isEqualTo(uninterrupted(in));
  }

  @Test
  void partitionedPlanWithDamagedVerdictBitsIsMadeAgain() throws Exception {
    Path in = input();
    killAt("COMMITTED:5", partitioned(in));
    Path bits = dir.resolve("st/plan/duplicates.bits");
    try (FileChannel ch = FileChannel.open(bits, StandardOpenOption.WRITE)) {
      ch.write(ByteBuffer.allocate(8), 3000); // records 24,000-24,063, all repeats: marks lost
    }
    Cli.Result resumed = Cli.run(partitioned(in).toArray(String[]::new));
    assertThat(resumed.status()).as(resumed.err()).isZero();
    assertThat(resumed.err()).contains("duplicates.bits");
    assertThat(Files.readAllBytes(dir.resolve("out.jsonl"))).isEqualTo(uninterrupted(in));
  }

  private List<String> sortDedup(Path in) {
    return List.of(
        "sort-dedup",
        "--key",
        "id",
        "--memory",
        "1m",
        "--state",
        dir.resolve("st").toString(),
        "-o",
        dir.resolve("out.jsonl").toString(),
        in.toString());
  }

  /** 1 MiB of memory spills a run about every 100 KB of this input. */
  @Test
  void sortDedupKilledWhileReadingRefusesAnInputEditedInThePartRead() throws Exception {
    Path in = input();
    killAt("CHECKPOINT_COMMITTED:2", sortDedup(in)); // the state, then the first run's checkpoint
    editLine(in, 10);
    assertRefused(Cli.run(sortDedup(in).toArray(String[]::new)), in);
  }

  @Test
  void sortDedupWithoutARunItsCheckpointNamesIsRefusedNamingIt() throws Exception {
    Path in = input();
    killAt("CHECKPOINT_COMMITTED:3", sortDedup(in));
    Path run;
    try (Stream<Path> runs = Files.list(dir.resolve("st/runs"))) {
      run = runs.sorted().findFirst().orElseThrow();
    }
    Files.delete(run);
    Cli.Result r = Cli.run(sortDedup(in).toArray(String[]::new));
    assertThat(r.status()).as(r.err()).isNotZero();
    assertThat(r.err()).contains(run.getFileName().toString()).contains("missing");
  }

  private List<String> nearDup(Path in, String... extra) {
    List<String> a =
        new ArrayList<>(
            List.of(
                "near-dup",
                "--content",
                "text",
                "--checkpoint-every",
                "200",
                "--state",
                dir.resolve("st").toString(),
                "-o",
                dir.resolve("out.jsonl").toString()));
    a.addAll(List.of(extra));
    a.add(in.toString());
    return a;
  }

  @Test
  void nearDupKilledWhileWritingRefusesAnInputEditedFurtherOn() throws Exception {
    Path in = input();
    killAt("DOCUMENT_WRITTEN:300", nearDup(in)); // judged and committed, writing
    editLine(in, LINES - 10); // judged by the first read, not written yet
    assertRefused(Cli.run(nearDup(in).toArray(String[]::new)), in);
  }

  @Test
  void streamingNearDupKilledWhileWritingRefusesAnInputEditedInThePartWritten() throws Exception {
    Path in = input();
    killAt("CHECKPOINT_COMMITTED:4", nearDup(in, "--streaming"));
    editLine(in, 10);
    assertRefused(Cli.run(nearDup(in, "--streaming").toArray(String[]::new)), in);
  }

  private List<String> split(Path in) {
    return List.of(
        "split",
        "--key",
        "id",
        "--shards",
        "3",
        "--checkpoint-every",
        "200",
        "-o",
        dir.resolve("shards").toString(),
        in.toString());
  }

  @Test
  void splitKilledWhileReadingRefusesAnInputEditedInThePartRead() throws Exception {
    Path in = input();
    killAt("CHECKPOINT_COMMITTED:4", split(in));
    editLine(in, 10);
    assertRefused(Cli.run(split(in).toArray(String[]::new)), in);
  }

  @Test
  void splitRefusesAShardChangedBeforeItsCheckpoint() throws Exception {
    Path in = input();
    killAt("CHECKPOINT_COMMITTED:4", split(in));
    Path shard = dir.resolve("shards/shard-00001.jsonl");
    long mark = shardLength(dir.resolve("shards/.idem-split/checkpoint.json"), 1);
    try (FileChannel ch = FileChannel.open(shard, StandardOpenOption.WRITE)) {
      ch.write(ByteBuffer.wrap(new byte[] {'#'}), mark - 100); // inside what the checkpoint counted
    }
    Cli.Result r = Cli.run(split(in).toArray(String[]::new));
    assertThat(r.status()).as(r.err()).isNotZero();
    assertThat(r.err())
        .contains("shard-00001.jsonl")
        .contains("changed since the last checkpoint")
        .doesNotContain("--state");
  }

  /** The length of shard {@code i} that a split's checkpoint file records. */
  private static long shardLength(Path checkpoint, int i) throws IOException {
    String content = Files.readString(checkpoint);
    JsonNode body = new ObjectMapper().readTree(content.substring(content.indexOf('\n') + 1));
    return body.get("checkpoint").get("shards").get(i).get("length").asLong();
  }

  /** What {@code dedup --key id} over {@code in} as it is now writes, uninterrupted. */
  private byte[] uninterrupted(Path in) throws IOException {
    Path out = dir.resolve("reference.jsonl");
    Cli.Result r = Cli.run("dedup", "--key", "id", "-q", "-o", out.toString(), in.toString());
    assertThat(r.status()).as(r.err()).isZero();
    return Files.readAllBytes(out);
  }
}
