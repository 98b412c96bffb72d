package dev.idem.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A record over --max-record-bytes is one bad record under every policy and every limit, in every
 * command that reads records; the 16m default once stopped the job at a 20 MB line.
 */
class OverlongRecordTest {

  /** The size of line 2: 20 MiB, past the default 16m, and 20 times a limit of 1m. */
  private static final int BIG = 20 << 20;

  @TempDir static Path dir;
  private static Path in;

  @BeforeAll
  static void writeInput() throws IOException {
    in = dir.resolve("in.jsonl");
    try (OutputStream out = Files.newOutputStream(in)) {
      out.write(bytes("{\"id\":1}\n{\"id\":3,\"blob\":\""));
      byte[] chunk = new byte[1 << 16];
      Arrays.fill(chunk, (byte) 'x');
      int blob = BIG - "{\"id\":3,\"blob\":\"\"}".length();
      for (int written = 0; written < blob; written += chunk.length) {
        out.write(chunk, 0, Math.min(chunk.length, blob - written));
      }
      out.write(bytes("\"}\r\n{\"id\":2}\n"));
    }
  }

  @Test
  void dedupSkipsTheRecordAtTheDefaultLimitAndCountsIt() {
    Cli.Result r = Cli.run("dedup", "--key", "id", "--on-bad-record", "skip", in.toString());
    assertThat(r.status()).as(r.err()).isZero();
    assertThat(r.out()).isEqualTo("{\"id\":1}\n{\"id\":2}\n");
    assertThat(r.err()).contains("3 records, 2 kept").contains("1 bad records");
  }

  @Test
  void dedupFailsNamingFileLineSizeAndTheLimitInForce() {
    Cli.Result r = Cli.run("dedup", "--key", "id", in.toString());
    assertThat(r.status()).isEqualTo(1);
    assertThat(r.err())
        .startsWith(
            "idem: "
                + in
                + ":2: record of 20,971,520 bytes is longer "
                + "than --max-record-bytes 16m")
        .contains("--on-bad-record skip");
    assertThat(r.out()).isEqualTo("{\"id\":1}\n");
  }

  @Test
  void aJobStoppedAtTheRecordResumesPastItWithSkip() throws IOException {
    Path state = dir.resolve("state");
    Path out = dir.resolve("resumed.jsonl");
    String[] args = {
      "dedup",
      "--key",
      "id",
      "--state",
      state.toString(),
      "-o",
      out.toString(),
      "--on-bad-record",
      "fail",
      in.toString()
    };
    Cli.Result fail = Cli.run(args);
    assertThat(fail.status()).isEqualTo(1);
    assertThat(fail.err())
        .contains(in + ":2: record of 20,971,520 bytes")
        .contains("stopped after a checkpoint");
    args[args.length - 2] = "skip";
    Cli.Result skip = Cli.run(args);
    assertThat(skip.status()).as(skip.err()).isZero();
    assertThat(Files.readString(out)).isEqualTo("{\"id\":1}\n{\"id\":2}\n");
    assertThat(skip.err()).contains("3 records, 2 kept").contains("1 bad records");
  }

  @Test
  void aLimitManyTimesSmallerThanTheRecordIsALimitLikeAnyOther() {
    Cli.Result r =
        Cli.run(
            "dedup",
            "--key",
            "id",
            "--max-record-bytes",
            "1m",
            "--on-bad-record",
            "skip",
            in.toString());
    assertThat(r.status()).as(r.err()).isZero();
    assertThat(r.err()).contains("1 bad records");
    // and the largest limit keeps it
    Cli.Result kept = Cli.run("dedup", "--key", "id", "--max-record-bytes", "64m", in.toString());
    assertThat(kept.status()).as(kept.err()).isZero();
    assertThat(kept.outBytes()).hasSize(BIG + 2 + 2 * "{\"id\":1}\n".length());
  }

  @Test
  void dedupQuarantineCountsTheRecordAndSaysItIsTooLongToKeep() throws IOException {
    Path q = dir.resolve("dedup-quarantine.jsonl");
    Cli.Result r =
        Cli.run("dedup", "--key", "id", "--on-bad-record", "quarantine=" + q, in.toString());
    assertThat(r.status()).as(r.err()).isZero();
    assertThat(r.err())
        .contains(
            in
                + ":2: record of 20,971,520 bytes is longer than "
                + "--max-record-bytes 16m; too long to quarantine, counted as bad");
    assertThat(Files.size(q)).isZero();
  }

  @Test
  void sortDedupSkipsOrFailsTheSameWay() throws IOException {
    Path tmp = Files.createDirectories(dir.resolve("tmp"));
    Cli.Result skip =
        Cli.run(
            "sort-dedup",
            "--key",
            "id",
            "--tmp",
            tmp.toString(),
            "--on-bad-record",
            "skip",
            in.toString());
    assertThat(skip.status()).as(skip.err()).isZero();
    assertThat(skip.out()).isEqualTo("{\"id\":1}\n{\"id\":2}\n");
    assertThat(skip.err()).contains("1 bad records");
    Cli.Result fail = Cli.run("sort-dedup", "--key", "id", "--tmp", tmp.toString(), in.toString());
    assertThat(fail.status()).isEqualTo(1);
    assertThat(fail.err())
        .contains(in + ":2: record of 20,971,520 bytes is longer than " + "--max-record-bytes 16m");
  }

  @Test
  void splitQuarantineWritesNoEmptyLineForTheRecord() throws IOException {
    Path out = dir.resolve("split");
    Path q = dir.resolve("split-quarantine.jsonl");
    Cli.Result r =
        Cli.run(
            "split",
            "--key",
            "id",
            "--shards",
            "2",
            "-o",
            out.toString(),
            "--on-bad-record",
            "quarantine=" + q,
            in.toString());
    assertThat(r.status()).as(r.err()).isZero();
    assertThat(r.err())
        .contains("into 2 shards")
        .contains("1 bad records")
        .contains(
            "idem split: warning: "
                + in
                + ":2: record of 20,971,520 bytes is longer "
                + "than --max-record-bytes 16m; too long to quarantine, counted as bad");
    assertThat(Files.size(q)).isZero();
  }

  @Test
  void aLimitOverTheCapIsAUsageErrorThatSaysWhy() {
    Cli.Result r = Cli.run("dedup", "--key", "id", "--max-record-bytes", "1g", in.toString());
    assertThat(r.status()).isEqualTo(2);
    assertThat(r.err())
        .contains(
            "--max-record-bytes can be at most 64m: records are held "
                + "whole in memory; longer ones are bad records (see --on-bad-record)");
    assertThat(Cli.run("dedup", "--help").out()).contains("at most 64m");
  }

  private static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }
}
