package dev.idem.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.idem.engine.store.StateStore;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Bad input, every policy; state that does not fit; locks; damaged state. */
class DedupFailureTest {

  @TempDir Path dir;

  private static final String BAD =
      """
      {"id":1}
      {"id":2
      {"other":3}
      {"id":null}
      {"id":{"a":1}}
      [1,2]

      {"id":1}
      {"id":4} trailing
      {"id":5}
      """;

  @ParameterizedTest
  @CsvSource(
      delimiter = '|',
      value = {
        "2|malformed JSON",
        "3|no field /id",
        "4|field /id is null",
        "5|field /id is an object",
        "6|not a JSON object",
        "9|malformed JSON",
      })
  void failStopsAtTheFirstBadRecordNamingFileLineAndReason(int line, String reason)
      throws IOException {
    // put only good lines before the bad one under test
    List<String> lines = BAD.lines().toList();
    StringBuilder sb = new StringBuilder(lines.get(0) + "\n");
    sb.append(lines.get(line - 1)).append("\n");
    Path in = dir.resolve("bad.jsonl");
    Files.writeString(in, sb.toString());
    Cli.Result r = Cli.run("dedup", "--key", "id", in.toString());
    assertThat(r.status()).isEqualTo(1);
    assertThat(r.err())
        .startsWith("idem: " + in + ":2: " + reason)
        .contains("--on-bad-record skip")
        .doesNotContain("Exception");
    assertThat(r.out()).isEqualTo("{\"id\":1}\n");
  }

  @Test
  void skipCountsEveryBadRecordAndQuarantineKeepsThemAsRead() throws IOException {
    Path in = dir.resolve("bad.jsonl");
    Files.writeString(in, BAD);
    Cli.Result skip = Cli.run("dedup", "--key", "id", "--on-bad-record", "skip", in.toString());
    assertThat(skip.status()).isZero();
    assertThat(skip.out()).isEqualTo("{\"id\":1}\n{\"id\":5}\n");
    assertThat(skip.err())
        .contains("9 records, 2 kept")
        .contains("6 bad records")
        .contains("1 blank lines skipped");
    Path q = dir.resolve("q.jsonl");
    Cli.Result quarantine =
        Cli.run("dedup", "--key", "id", "--on-bad-record", "quarantine=" + q, in.toString());
    assertThat(quarantine.status()).isZero();
    assertThat(Files.readString(q))
        .isEqualTo(
            "{\"id\":2\n{\"other\":3}\n{\"id\":null}\n"
                + "{\"id\":{\"a\":1}}\n[1,2]\n{\"id\":4} trailing\n");
  }

  @Test
  void invalidUtf8AndOverlongRecordsAreBadRecords() throws IOException {
    Path in = dir.resolve("in.txt");
    byte[] overlong = "x".repeat(5000).getBytes();
    try (var out = Files.newOutputStream(in)) {
      out.write("ok\n".getBytes());
      out.write(new byte[] {'b', (byte) 0xC3, '\n'});
      out.write(overlong);
      out.write("\nok2\n".getBytes());
    }
    Cli.Result r =
        Cli.run(
            "dedup",
            "--whole-line",
            "--normalize",
            "lowercase",
            "--max-record-bytes",
            "1k",
            "--on-bad-record",
            "skip",
            in.toString());
    assertThat(r.status()).as(r.err()).isZero();
    assertThat(r.out()).isEqualTo("ok\nok2\n");
    assertThat(r.err()).contains("2 bad records");
    Cli.Result fail = Cli.run("dedup", "--whole-line", "--normalize", "lowercase", in.toString());
    assertThat(fail.err()).contains(in + ":2: key is not valid UTF-8");
  }

  @Test
  void aFailedJobResumesPastTheBadRecordWithSkip() throws IOException {
    Path in = dir.resolve("in.jsonl");
    Files.writeString(in, "{\"id\":1}\n{\"id\":2}\nnot json\n{\"id\":1}\n{\"id\":3}\n");
    Path state = dir.resolve("state");
    Path out = dir.resolve("out.jsonl");
    Cli.Result fail =
        Cli.run(
            "dedup",
            "--key",
            "id",
            "--state",
            state.toString(),
            "-o",
            out.toString(),
            in.toString());
    assertThat(fail.status()).isEqualTo(1);
    assertThat(fail.err()).contains(":3: ").contains("stopped after a checkpoint");
    Cli.Result skip =
        Cli.run(
            "dedup",
            "--key",
            "id",
            "--state",
            state.toString(),
            "-o",
            out.toString(),
            "--on-bad-record",
            "skip",
            in.toString());
    assertThat(skip.status()).as(skip.err()).isZero();
    assertThat(Files.readString(out)).isEqualTo("{\"id\":1}\n{\"id\":2}\n{\"id\":3}\n");
    assertThat(skip.err()).contains("5 records, 3 kept").contains("1 bad records");
  }

  @Test
  void aJobResumesInsideAGzipShardOfADirectory() throws IOException {
    Path shards = Files.createDirectory(dir.resolve("shards"));
    for (int s = 0; s < 3; s++) {
      StringBuilder sb = new StringBuilder();
      for (int i = 0; i < 1000; i++) {
        sb.append(s == 1 && i == 500 ? "oops\n" : "{\"id\":" + (i + s * 300) + "}\n");
      }
      try (var out =
          new java.util.zip.GZIPOutputStream(
              Files.newOutputStream(shards.resolve("part-" + s + ".jsonl.gz")))) {
        out.write(sb.toString().getBytes(java.nio.charset.StandardCharsets.UTF_8));
      }
    }
    Path state = dir.resolve("state");
    Path out = dir.resolve("out.jsonl");
    String[] args = {
      "dedup",
      "--key",
      "id",
      "--state",
      state.toString(),
      "-o",
      out.toString(),
      "--checkpoint-every",
      "128",
      "--on-bad-record",
      "fail",
      shards.toString()
    };
    Cli.Result fail = Cli.run(args);
    assertThat(fail.status()).isEqualTo(1);
    assertThat(fail.err()).contains("part-1.jsonl.gz:501: ");
    args[args.length - 2] = "skip";
    Cli.Result resumed = Cli.run(args);
    assertThat(resumed.status()).as(resumed.err()).isZero();
    StringBuilder expected = new StringBuilder();
    for (int k = 0; k < 1600; k++) {
      expected.append("{\"id\":").append(k).append("}\n");
    }
    assertThat(Files.readString(out)).isEqualTo(expected.toString());
    assertThat(resumed.err())
        .contains("3,000 records, 1,600 kept")
        .contains("resumed at record 1,500");
  }

  @Test
  void aStateFromAnotherCommandIsRefusedNamingEachDifference() throws IOException {
    Path in = dir.resolve("in.jsonl");
    Files.writeString(in, "{\"id\":1}\n");
    Path state = dir.resolve("state");
    Path out = dir.resolve("out.jsonl");
    assertThat(
            Cli.run(
                    "dedup",
                    "--key",
                    "id",
                    "--state",
                    state.toString(),
                    "-o",
                    out.toString(),
                    in.toString())
                .status())
        .isZero();
    Cli.Result other =
        Cli.run(
            "dedup",
            "--key",
            "other",
            "--fpp",
            "0.01",
            "--state",
            state.toString(),
            "-o",
            out.toString(),
            in.toString());
    assertThat(other.status()).isEqualTo(2);
    assertThat(other.err())
        .contains("--fpp differs: the state has 0.001, this command has 0.01")
        .contains("the key (--key/--column/--whole-line/--content) differs");
    Files.writeString(in, "{\"id\":1}\n{\"id\":2}\n");
    Cli.Result changed =
        Cli.run(
            "dedup",
            "--key",
            "id",
            "--state",
            state.toString(),
            "-o",
            out.toString(),
            in.toString());
    assertThat(changed.status()).isEqualTo(2);
    assertThat(changed.err()).contains(in + " changed since the state was created");
  }

  @Test
  void stateNeedsAnOutputFileAndFileInputs() throws IOException {
    Path in = dir.resolve("in.jsonl");
    Files.writeString(in, "{\"id\":1}\n");
    Cli.Result noOut =
        Cli.run("dedup", "--key", "id", "--state", dir.resolve("s").toString(), in.toString());
    assertThat(noOut.status()).isEqualTo(2);
    assertThat(noOut.err()).contains("--state needs -o FILE");
    Cli.Result stdin =
        Cli.run(
            "dedup",
            "--key",
            "id",
            "--state",
            dir.resolve("s").toString(),
            "-o",
            dir.resolve("o").toString(),
            "-");
    assertThat(stdin.err()).contains("standard input can be read only once");
  }

  @Test
  void aSecondProcessOnTheSameStateIsRefused() throws Exception {
    Path in = dir.resolve("in.jsonl");
    Files.writeString(in, "{\"id\":1}\n".repeat(10));
    Path state = dir.resolve("state");
    Files.createDirectories(state);
    // hold the lock as a running job would
    try (var ch =
            java.nio.channels.FileChannel.open(
                state.resolve("LOCK"),
                java.nio.file.StandardOpenOption.CREATE,
                java.nio.file.StandardOpenOption.WRITE);
        var lock = ch.lock()) {
      Process second =
          ChildProcessTest.start(
              "dedup",
              "--key",
              "id",
              "--state",
              state.toString(),
              "-o",
              dir.resolve("out").toString(),
              in.toString());
      assertThat(second.waitFor()).isEqualTo(2);
      assertThat(new String(second.getErrorStream().readAllBytes()))
          .contains("is in use by another idem process");
    }
  }

  @Test
  void aDamagedSnapshotIsRebuiltFromTheExactStoreAndATruncatedOutputIsRefused() throws IOException {
    Path in = dir.resolve("in.jsonl");
    StringBuilder sb = new StringBuilder();
    for (int i = 0; i < 3000; i++) {
      sb.append("{\"id\":").append(i % 2000).append("}\n");
    }
    Files.writeString(in, sb.toString());
    Path state = dir.resolve("state");
    Path out = dir.resolve("out.jsonl");
    String[] args = {
      "dedup",
      "--key",
      "id",
      "--expected",
      "500",
      "--filter",
      "blocked",
      "--state",
      state.toString(),
      "-o",
      out.toString(),
      "--checkpoint-every",
      "100",
      "--on-bad-record",
      "fail",
      in.toString()
    };
    // stop half-way with a bad record, so there is a checkpoint and snapshots to damage
    Files.writeString(
        in, sb.substring(0, sb.length() / 2) + "broken\n" + sb.substring(sb.length() / 2));
    assertThat(Cli.run(args).status()).isEqualTo(1);
    Path snap;
    try (var files = Files.list(state)) {
      snap =
          files
              .filter(p -> p.getFileName().toString().startsWith("filter-"))
              .findFirst()
              .orElseThrow();
    }
    byte[] bytes = Files.readAllBytes(snap);
    bytes[bytes.length / 2] ^= 0x55;
    Files.write(snap, bytes);
    String[] skipArgs = args.clone();
    skipArgs[skipArgs.length - 2] = "skip";
    Cli.Result resumed = Cli.run(skipArgs);
    assertThat(resumed.status()).as(resumed.err()).isZero();
    assertThat(resumed.err())
        .contains("fails its checksum: the snapshot is damaged")
        .contains("warning: filter snapshot unusable")
        .contains("filter rebuilt from the exact store");
    StringBuilder expected = new StringBuilder();
    for (int i = 0; i < 2000; i++) {
      expected.append("{\"id\":").append(i).append("}\n");
    }
    assertThat(Files.readString(out)).isEqualTo(expected.toString());

    // a fresh state stopped half-way, then its output cut short by someone else
    Path state2 = dir.resolve("state2");
    String[] args2 = args.clone();
    args2[8] = state2.toString();
    assertThat(Cli.run(args2).status()).isEqualTo(1);
    Files.write(out, new byte[10]);
    Cli.Result refused = Cli.run(args2);
    assertThat(refused.status()).isEqualTo(1);
    assertThat(refused.err()).contains("shorter than the").contains("changed outside this job");
  }

  /**
   * The in-memory exact set is either the job's only tier (the default: its snapshot is the filter
   * snapshot) or, in states written before that layout or with {@code --filter}, a second tier
   * behind a filter with its own snapshot.
   */
  @ParameterizedTest(name = "--filter {0}")
  @CsvSource({"default, filter-", "blocked, exact-"})
  void aDamagedExactSetSnapshotIsRebuiltFromTheJournal(String filter, String snapshotPrefix)
      throws IOException {
    Path in = dir.resolve("in.jsonl");
    StringBuilder sb = new StringBuilder();
    for (int i = 0; i < 3000; i++) {
      sb.append("{\"id\":").append(i % 2000).append("}\n");
    }
    Files.writeString(
        in, sb.substring(0, sb.length() / 2) + "broken\n" + sb.substring(sb.length() / 2));
    Path state = dir.resolve("state");
    Path out = dir.resolve("out.jsonl");
    String[] args =
        withFilter(
            filter,
            "dedup",
            "--key",
            "id",
            "--exact-store",
            "memory",
            "--state",
            state.toString(),
            "-o",
            out.toString(),
            "--checkpoint-every",
            "100",
            "--threads",
            "1", // several threads checkpoint between batches: this input is one batch
            "--expected",
            "2000", // a set this small is snapshotted before the bad record
            "--on-bad-record",
            "fail",
            in.toString());
    assertThat(Cli.run(args).status()).isEqualTo(1);
    Path snap;
    try (var files = Files.list(state)) {
      snap =
          files
              .filter(p -> p.getFileName().toString().startsWith(snapshotPrefix))
              .findFirst()
              .orElseThrow();
    }
    byte[] bytes = Files.readAllBytes(snap);
    bytes[bytes.length - 100] ^= 0x55;
    Files.write(snap, bytes);
    args[args.length - 2] = "skip";
    Cli.Result resumed = Cli.run(args);
    assertThat(resumed.status()).as(resumed.err()).isZero();
    assertThat(resumed.err())
        .contains("warning: exact-set snapshot unusable")
        .contains(snap.getFileName().toString())
        .contains("rebuilt the set from the journal");
    StringBuilder expected = new StringBuilder();
    for (int i = 0; i < 2000; i++) {
      expected.append("{\"id\":").append(i).append("}\n");
    }
    assertThat(Files.readString(out)).isEqualTo(expected.toString());
  }

  @ParameterizedTest(name = "--filter {0}")
  @CsvSource({"default, filter-", "blocked, exact-"})
  void resumesJournalEachKeptKeyOnceAndRestoreTheSetFromItsSnapshot(
      String filter, String snapshotPrefix) throws IOException {
    Path in = dir.resolve("in.jsonl");
    StringBuilder sb = new StringBuilder();
    int bad = 0;
    for (int i = 0; i < 30_000; i++) {
      sb.append("{\"id\":").append(i % 20_000).append("}\n");
      if (i % 10_000 == 9_999) {
        sb.append("broken\n"); // with "fail", every run resumes and stops at the first one
        bad++;
      }
    }
    Files.writeString(in, sb);
    Path state = dir.resolve("state");
    Path out = dir.resolve("out.jsonl");
    Path stats = dir.resolve("stats.json");
    String[] args =
        withFilter(
            filter,
            "dedup",
            "--key",
            "id",
            "--exact-store",
            "memory",
            "--state",
            state.toString(),
            "-o",
            out.toString(),
            "--checkpoint-every",
            "1000",
            "--stats-json",
            stats.toString(),
            in.toString());
    for (int run = 0; run < bad; run++) {
      assertThat(Cli.run(args).status()).isEqualTo(1);
    }
    String[] skip = {"--on-bad-record", "skip"};
    String[] last = new String[args.length + 2];
    System.arraycopy(args, 0, last, 0, args.length - 1);
    System.arraycopy(skip, 0, last, args.length - 1, 2);
    last[last.length - 1] = in.toString();
    Cli.Result done = Cli.run(last);
    assertThat(done.status()).as(done.err()).isZero();
    assertThat(Files.readString(out).lines()).hasSize(20_000).doesNotHaveDuplicates();
    // the last resume read the set from a snapshot and replayed only the journal after it
    JsonNode json = new ObjectMapper().readTree(stats.toFile());
    long replayed = json.get("journal_replayed").asLong();
    assertThat(replayed).isLessThan(20_000);
    // the restore's two parts are within it
    assertThat(
            json.get("restore_load_millis").asLong() + json.get("restore_replay_millis").asLong())
        .isBetween(0L, json.get("restore_millis").asLong());
    // and the parts that do not grow with the state are there too
    for (String part :
        List.of(
            "restore_state_open_millis",
            "restore_store_open_millis",
            "restore_input_check_millis")) {
      assertThat(json.get(part).asLong())
          .as(part)
          .isBetween(0L, json.get("restore_millis").asLong());
    }
    assertThat(json.get("restore_mapped_in_place").asBoolean())
        .as("snapshot used in place")
        .isTrue();
    try (var files = Files.list(state)) {
      assertThat(files.map(p -> p.getFileName().toString()))
          .anyMatch(n -> n.matches(snapshotPrefix + "\\d+\\.snap"));
    }
    long journaled;
    try (StateStore store = StateStore.open(state.resolve("store"), 8 << 20, false)) {
      long[] n = new long[1];
      store.forEachJournaled(1, Long.MAX_VALUE, (hi, lo, key) -> n[0]++);
      journaled = n[0];
    }
    assertThat(journaled).as("journal entries for 20,000 kept keys").isEqualTo(20_000);
  }

  /** {@code args} with {@code --filter filter} after the command's name, unless "default". */
  private static String[] withFilter(String filter, String... args) {
    if (filter.equals("default")) {
      return args;
    }
    List<String> all = new java.util.ArrayList<>(List.of(args));
    all.addAll(1, List.of("--filter", filter));
    return all.toArray(String[]::new);
  }
}
