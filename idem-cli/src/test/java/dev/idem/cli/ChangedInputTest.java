package dev.idem.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.idem.engine.run.StateFile;
import dev.idem.engine.store.StateStore;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.FileTime;
import java.util.ArrayList;
import java.util.List;
import java.util.zip.Deflater;
import java.util.zip.GZIPOutputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A resumed job refuses an input that changed in the part it already read, wherever in that part it
 * changed, and accepts one whose content it read did not change.
 *
 * <p>Each job is stopped by a bad record at about 150 KB under {@code --on-bad-record fail}, which
 * checkpoints just before it; the resume runs with {@code skip}, which is not part of the job's
 * identity. By then the job has read past the first 64 KiB, the only part earlier versions
 * compared.
 */
class ChangedInputTest {

  @TempDir Path dir;

  private static final int LINES = 3000;
  private static final int BAD_LINE = 2300;

  /** ~200 KB of JSON Lines, ids repeating, with one bad line at about 150 KB. */
  private static byte[] input() {
    return input(LINES);
  }

  private static byte[] input(int lines) {
    StringBuilder sb = new StringBuilder();
    for (int i = 0; i < lines; i++) {
      if (i == BAD_LINE) {
        sb.append("not json\n");
      }
      sb.append(
          String.format(
              "{\"id\":\"k%06d\",\"n\":\"%05d\",\"pad\":\"%s\"}%n", i % 1700, i, "x".repeat(30)));
    }
    return sb.toString().getBytes(StandardCharsets.US_ASCII);
  }

  private String[] args(Path in, String policy, String... extra) {
    List<String> a =
        new ArrayList<>(
            List.of(
                "dedup",
                "--key",
                "id",
                "--state",
                dir.resolve("state").toString(),
                "-o",
                dir.resolve("out.jsonl").toString(),
                "--checkpoint-every",
                "100",
                "--on-bad-record",
                policy));
    a.addAll(List.of(extra));
    a.add(in.toString());
    return a.toArray(String[]::new);
  }

  /** Writes the input and runs the job until it stops at the bad record. */
  private Path interrupted(byte[] content) throws IOException {
    Path in = dir.resolve("in.jsonl");
    Files.write(in, content);
    Cli.Result stopped = Cli.run(args(in, "fail"));
    assertThat(stopped.status()).as(stopped.err()).isEqualTo(1);
    assertThat(stopped.err()).contains(":" + (BAD_LINE + 1) + ": ");
    return in;
  }

  /** Where the bad line starts: the job has read everything before it. */
  private static int consumed(byte[] content) {
    return indexOf(content, "not json\n", 0);
  }

  /**
   * Rewrites, in place, the id of the first line that starts at or after {@code from} (same size,
   * same file); returns where that line starts.
   */
  private static int rewriteIdAfter(Path in, int from, boolean keepModifiedTime)
      throws IOException {
    byte[] content = Files.readAllBytes(in);
    int line = indexOf(content, "\n{\"id\":\"k", from - 1) + 1;
    int id = line + "{\"id\":\"k".length();
    assertThat(new String(content, id, 7, StandardCharsets.US_ASCII)).matches("[0-9]{6}\"");
    FileTime before = Files.getLastModifiedTime(in);
    try (FileChannel ch = FileChannel.open(in, StandardOpenOption.WRITE)) {
      ch.write(ByteBuffer.wrap("999999".getBytes(StandardCharsets.US_ASCII)), id);
    }
    if (keepModifiedTime) {
      Files.setLastModifiedTime(in, before);
    } else {
      Files.setLastModifiedTime(in, FileTime.fromMillis(before.toMillis() + 5000));
    }
    return line;
  }

  private static int indexOf(byte[] b, String what, int from) {
    byte[] w = what.getBytes(StandardCharsets.US_ASCII);
    outer:
    for (int i = Math.max(0, from); i + w.length <= b.length; i++) {
      for (int j = 0; j < w.length; j++) {
        if (b[i + j] != w[j]) {
          continue outer;
        }
      }
      return i;
    }
    throw new AssertionError(what + " not found after " + from);
  }

  /** What an uninterrupted run over the input as it is now writes. */
  private byte[] reference(Path in) throws IOException {
    Path out = dir.resolve("reference.jsonl");
    Cli.Result r =
        Cli.run(
            "dedup", "--key", "id", "--on-bad-record", "skip", "-o", out.toString(), in.toString());
    assertThat(r.status()).as(r.err()).isZero();
    return Files.readAllBytes(out);
  }

  @Test
  void theSameFileNamedAnotherWayIsTheSameInputButACopyIsNot() throws IOException {
    Path sub = Files.createDirectories(dir.resolve("data"));
    Path in = sub.resolve("urls.txt");
    Files.writeString(in, "a\nb\na\nc\n");
    Path link = dir.resolve("latest.txt");
    Files.createSymbolicLink(link, in);
    String state = dir.resolve("state").toString();
    String out = dir.resolve("out.txt").toString();
    Cli.Result first = Cli.run("dedup", "--whole-line", "--state", state, "-o", out, in.toString());
    assertThat(first.status()).as(first.err()).isZero();

    for (Path same : List.of(dir.resolve("data/../data/./urls.txt"), link)) {
      Cli.Result again =
          Cli.run("dedup", "--whole-line", "--state", state, "-o", out, same.toString());
      assertThat(again.status()).as("%s: %s", same, again.err()).isZero();
      assertThat(again.err()).contains("already complete");
    }

    Path copy = dir.resolve("copy.txt");
    Files.copy(in, copy);
    Cli.Result other =
        Cli.run("dedup", "--whole-line", "--state", state, "-o", out, copy.toString());
    assertThat(other.status()).isEqualTo(IdemCommand.EXIT_USAGE);
    assertThat(other.err()).contains("input 1 is " + in + " in the state, " + copy);
  }

  @Test
  void anInPlaceEditPast64KiBWithTheModifiedTimeRestoredIsRefusedNamingTheFile()
      throws IOException {
    byte[] content = input();
    Path in = interrupted(content);
    assertThat(consumed(content)).isGreaterThan(140_000);
    // at 64 KiB: in a sampled block for any sampling stride of up to 64 KiB
    int line = rewriteIdAfter(in, 65_536, true);
    assertThat(line).isLessThan(65_536 + 4096 - 60);
    Cli.Result resumed = Cli.run(args(in, "skip"));
    assertThat(resumed.status()).as(resumed.err()).isEqualTo(2);
    assertThat(resumed.err())
        .contains(in + ": bytes 65,536-69,631 differ from what the job read")
        .contains("new --state");
  }

  @Test
  void anEditTheSampledBlocksMissIsRefusedWithVerifyInputsFull() throws IOException {
    byte[] content = input();
    Path in = interrupted(content);
    // between two sampled blocks: the blocks start at multiples of a stride of 8 KiB or more
    int line = rewriteIdAfter(in, 69_632 + 100, true);
    assertThat(line % 8192).isBetween(4096, 8192 - 70);
    Cli.Result full = Cli.run(args(in, "skip", "--verify-inputs", "full"));
    assertThat(full.status()).as(full.err()).isEqualTo(2);
    assertThat(full.err())
        .contains(
            in
                + ": its first "
                + String.format("%,d", consumed(content))
                + " bytes, which the job read, differ from what it read");
  }

  @Test
  void anEditedInputWhoseModifiedTimeChangedIsReadInFullAndRefused() throws IOException {
    byte[] content = input();
    Path in = interrupted(content);
    rewriteIdAfter(in, 69_632 + 100, false); // as an editor would: a new modification time
    Cli.Result resumed = Cli.run(args(in, "skip"));
    assertThat(resumed.status()).as(resumed.err()).isEqualTo(2);
    assertThat(resumed.err())
        .contains(in + ": modified since the job read it")
        .contains(
            in
                + ": its first "
                + String.format("%,d", consumed(content))
                + " bytes, which the job read, differ from what it read");
  }

  @Test
  void aTouchAloneIsCheckedInFullAndResumes() throws IOException {
    byte[] content = input();
    Path in = interrupted(content);
    byte[] expected = reference(in);
    Files.setLastModifiedTime(in, FileTime.fromMillis(System.currentTimeMillis() + 60_000));
    Cli.Result resumed = Cli.run(args(in, "skip"));
    assertThat(resumed.status()).as(resumed.err()).isZero();
    assertThat(resumed.err())
        .contains(in + ": modified since the job read it (modification " + "time")
        .contains(
            "checking the " + String.format("%,d", consumed(content)) + " bytes it read in full");
    assertThat(Files.readAllBytes(dir.resolve("out.jsonl"))).isEqualTo(expected);
    // the check passed, so the checkpoints after it vouch for the file as it is now: the next
    // resume compares against the new time and needs no full read
    try (StateStore store =
        StateStore.open(dir.resolve("state").resolve("store"), 8 << 20, false)) {
      assertThat(
              new ObjectMapper().readTree(store.meta("checkpoint")).at("/read/modified").asText())
          .isEqualTo(Files.getLastModifiedTime(in).toString());
    }
  }

  @Test
  void touchedInputsAreReadInFullOnceNotAtEveryResume() throws IOException {
    Path first = dir.resolve("a.jsonl");
    Path second = dir.resolve("b.jsonl");
    byte[] content = input();
    int cut = indexOf(content, "\n", 100_000) + 1;
    Files.write(first, java.util.Arrays.copyOfRange(content, 0, cut));
    Files.write(second, java.util.Arrays.copyOfRange(content, cut, content.length));
    String[] args = {
      "dedup",
      "--key",
      "id",
      "--state",
      dir.resolve("state").toString(),
      "-o",
      dir.resolve("out.jsonl").toString(),
      "--checkpoint-every",
      "100",
      first.toString(),
      second.toString()
    };
    assertThat(Cli.run(args).status()).isEqualTo(1); // stopped by the bad line, in b
    for (Path p : List.of(first, second)) {
      Files.setLastModifiedTime(p, FileTime.fromMillis(System.currentTimeMillis() + 60_000));
    }
    // each resume stops at the same bad line again (--on-bad-record fail), after its check
    Cli.Result checked = Cli.run(args);
    assertThat(checked.status()).as(checked.err()).isEqualTo(1);
    assertThat(checked.err())
        .contains(first + ": modified since the job read it")
        .contains(second + ": modified since the job read it");
    Cli.Result quiet = Cli.run(args);
    assertThat(quiet.status()).as(quiet.err()).isEqualTo(1);
    assertThat(quiet.err()).doesNotContain("modified since");
  }

  @Test
  void anEditPastWhatTheJobReadIsAcceptedAndReadAsItIsNow() throws IOException {
    byte[] content = input();
    Path in = interrupted(content);
    int line = rewriteIdAfter(in, consumed(content) + 5000, false);
    assertThat(line).isGreaterThan(consumed(content));
    byte[] expected = reference(in); // the edited input, deduplicated in one run
    Cli.Result resumed = Cli.run(args(in, "skip"));
    assertThat(resumed.status()).as(resumed.err()).isZero();
    assertThat(resumed.err())
        .contains(in + ": modified since the job read it")
        .contains("bytes it read in full");
    assertThat(Files.readAllBytes(dir.resolve("out.jsonl"))).isEqualTo(expected);
  }

  @Test
  void aFinishedInputThatChangedIsRefusedToo() throws IOException {
    Path first = dir.resolve("a.jsonl");
    Path second = dir.resolve("b.jsonl");
    byte[] content = input();
    // over 136 KiB: sampled every 8 KiB, so the edit below falls between two blocks
    int cut = indexOf(content, "\n", 140_000) + 1;
    Files.write(first, java.util.Arrays.copyOfRange(content, 0, cut));
    Files.write(second, java.util.Arrays.copyOfRange(content, cut, content.length));
    String[] fail = {
      "dedup",
      "--key",
      "id",
      "--state",
      dir.resolve("state").toString(),
      "-o",
      dir.resolve("out.jsonl").toString(),
      "--checkpoint-every",
      "100",
      first.toString(),
      second.toString()
    };
    assertThat(Cli.run(fail).status()).isEqualTo(1);
    rewriteIdAfter(first, 69_632 + 100, true);
    String[] full = {
      "dedup",
      "--key",
      "id",
      "--state",
      dir.resolve("state").toString(),
      "-o",
      dir.resolve("out.jsonl").toString(),
      "--checkpoint-every",
      "100",
      "--on-bad-record",
      "skip",
      "--verify-inputs",
      "full",
      first.toString(),
      second.toString()
    };
    Cli.Result resumed = Cli.run(full);
    assertThat(resumed.status()).as(resumed.err()).isEqualTo(2);
    assertThat(resumed.err())
        .contains(
            first
                + ": its "
                + String.format("%,d", cut)
                + " bytes differ from the ones the job read");
  }

  @Test
  void aGzipInputIsCheckedInFullOnResumeAtNoExtraCost() throws IOException {
    // over 1 MiB, so that nothing reads it to its end, where gzip's own CRC-32 would notice
    byte[] content = input(25_000);
    Path in = dir.resolve("in.jsonl.gz");
    // stored (level 0) deflate blocks: the same edit in the file is the same edit in the text
    try (OutputStream out =
        new GZIPOutputStream(Files.newOutputStream(in)) {
          {
            def.setLevel(Deflater.NO_COMPRESSION);
          }
        }) {
      out.write(content);
    }
    Cli.Result stopped = Cli.run(args(in, "fail"));
    assertThat(stopped.status()).as(stopped.err()).isEqualTo(1);
    rewriteIdAfter(in, 100_000, true);
    Cli.Result resumed = Cli.run(args(in, "skip"));
    assertThat(resumed.status()).as(resumed.err()).isEqualTo(2);
    assertThat(resumed.err())
        .contains(
            in
                + ": its first "
                + String.format("%,d", consumed(content))
                + " bytes, which the job read, differ from what it read");
  }

  @Test
  void aSplitRefusesAnInputChangedInThePartItReadAndResumesOnceItIsPutBack() throws IOException {
    byte[] content = input();
    Path in = dir.resolve("in.jsonl");
    Files.write(in, content);
    Path shards = dir.resolve("shards");
    String[] split = {
      "split",
      "--key",
      "id",
      "--shards",
      "3",
      "--checkpoint-every",
      "100",
      "-o",
      shards.toString(),
      in.toString()
    };
    assertThat(Cli.run(split).status()).isEqualTo(1);
    rewriteIdAfter(in, 69_632 + 100, false);
    String[] skip = {
      "split",
      "--key",
      "id",
      "--shards",
      "3",
      "--checkpoint-every",
      "100",
      "--on-bad-record",
      "skip",
      "-o",
      shards.toString(),
      in.toString()
    };
    Cli.Result refused = Cli.run(skip);
    assertThat(refused.status()).as(refused.err()).isEqualTo(2);
    assertThat(refused.err())
        .contains("idem split: " + in + ": modified since the job read it")
        .contains(
            in
                + ": its first "
                + String.format("%,d", consumed(content))
                + " bytes, which the job read, differ from what it read");
    Files.write(in, content); // put back: same bytes, another modification time
    Cli.Result resumed = Cli.run(skip);
    assertThat(resumed.status()).as(resumed.err()).isZero();
    assertThat(resumed.err())
        .contains("idem split: " + in + ": modified since the job read it")
        .contains("resumed: 3,001 records");
  }

  @Test
  void aSplitCheckpointOfTheEarlierFormatStillResumes() throws IOException {
    Path in = dir.resolve("in.jsonl");
    Files.write(in, input());
    Path shards = dir.resolve("shards");
    assertThat(
            Cli.run(
                    "split",
                    "--key",
                    "id",
                    "--shards",
                    "3",
                    "--checkpoint-every",
                    "100",
                    "-o",
                    shards.toString(),
                    in.toString())
                .status())
        .isEqualTo(1);
    // the checkpoint as versions before the input check wrote it: no record of what was read,
    // inputs by path, size and first 64 KiB only (in today's encoding, checksummed)
    Path checkpoint = shards.resolve(".idem-split/checkpoint.json");
    ObjectNode saved = (ObjectNode) new ObjectMapper().readTree(body(checkpoint));
    ObjectNode position = (ObjectNode) saved.get("checkpoint").get("position");
    position.putNull("current");
    position.putArray("ended");
    saved
        .get("identity")
        .withArray("inputs")
        .forEach(f -> ((ObjectNode) f).retain("path", "size", "head_crc"));
    StateFile.write(checkpoint, "split", 2, saved);
    Cli.Result resumed =
        Cli.run(
            "split",
            "--key",
            "id",
            "--shards",
            "3",
            "--checkpoint-every",
            "100",
            "--on-bad-record",
            "skip",
            "--verify-inputs",
            "full",
            "-o",
            shards.toString(),
            in.toString());
    assertThat(resumed.status()).as(resumed.err()).isZero();
    assertThat(resumed.err())
        .contains("idem split: warning: " + in + ": not checked in full")
        .contains("resumed: 3,001 records");
  }

  /** The JSON body of a state file: what follows its header line. */
  private static String body(Path stateFile) throws IOException {
    String content = Files.readString(stateFile);
    return content.substring(content.indexOf('\n') + 1);
  }

  @Test
  void aStateOfTheEarlierFormatStillResumes() throws IOException {
    byte[] content = input();
    Path in = interrupted(content);
    byte[] expected = reference(in);
    Path state = dir.resolve("state");
    // what versions before the input check wrote: inputs with path, size and head_crc only, and
    // checkpoints without what was read
    ObjectMapper json = new ObjectMapper();
    ObjectNode manifest = (ObjectNode) json.readTree(body(state.resolve("MANIFEST.json")));
    manifest.withArray("inputs").forEach(f -> ((ObjectNode) f).retain("path", "size", "head_crc"));
    Files.write( // bare JSON, as those versions wrote it
        state.resolve("MANIFEST.json"),
        json.writerWithDefaultPrettyPrinter().writeValueAsBytes(manifest));
    try (StateStore store = StateStore.open(state.resolve("store"), 8 << 20, false)) {
      ObjectNode cp = (ObjectNode) json.readTree(store.meta("checkpoint"));
      cp.remove("read");
      try (StateStore.Commit c = store.commit()) {
        c.meta("checkpoint", json.writeValueAsBytes(cp)).write(true);
      }
    }
    assertThat(Files.readString(state.resolve("MANIFEST.json"))).doesNotContain("modified");
    Cli.Result resumed = Cli.run(args(in, "skip", "--verify-inputs", "full"));
    assertThat(resumed.status()).as(resumed.err()).isZero();
    assertThat(resumed.err()).contains("warning: " + in + ": not checked in full");
    assertThat(Files.readAllBytes(dir.resolve("out.jsonl"))).isEqualTo(expected);
  }
}
