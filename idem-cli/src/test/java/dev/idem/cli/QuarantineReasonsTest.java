package dev.idem.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code --on-bad-record quarantine=FILE} writes the bad records as read to FILE and, beside it,
 * {@code FILE.reasons.tsv}: the input, line and reason of each, exactly once across kills and
 * resumes, like the quarantine file itself.
 */
class QuarantineReasonsTest {

  @TempDir Path dir;

  @Test
  void eachBadRecordHasItsInputLineAndReason() throws IOException {
    Path in =
        Files.writeString(
            dir.resolve("in.jsonl"),
            "{\"id\":1}\nnot json\n{\"x\":2}\n{\"id\":1}\n\n{\"id\":3}\n{\"id\":\n");
    Path bad = dir.resolve("bad.jsonl");
    Cli.Result r =
        Cli.run(
            "dedup",
            "--key",
            "id",
            "--on-bad-record",
            "quarantine=" + bad,
            "-o",
            dir.resolve("out.jsonl").toString(),
            in.toString());
    assertThat(r.status()).as(r.err()).isZero();
    assertThat(Files.readString(bad)).isEqualTo("not json\n{\"x\":2}\n{\"id\":\n");
    List<String> reasons = Files.readAllLines(dir.resolve("bad.jsonl.reasons.tsv"));
    assertThat(reasons).hasSize(3);
    assertThat(reasons.get(0)).startsWith(in + "\t2\tmalformed JSON");
    assertThat(reasons.get(1)).isEqualTo(in + "\t3\tno field /id (this record's fields: x)");
    assertThat(reasons.get(2)).startsWith(in + "\t7\tmalformed JSON");
    assertThat(reasons).allMatch(l -> l.split("\t", -1).length == 3);
  }

  @Test
  void killedAndResumedTheReasonsAreThoseOfAnUninterruptedRun() throws Exception {
    StringBuilder b = new StringBuilder();
    for (int i = 0; i < 60_000; i++) {
      if (i % 97 == 5) {
        b.append("{\"id\": broken ").append(i).append('\n');
      } else if (i % 89 == 7) {
        b.append("{\"other\":").append(i).append("}\n");
      } else {
        b.append("{\"id\":").append(i % 40_000).append(",\"n\":").append(i).append("}\n");
      }
    }
    Path input = Files.writeString(dir.resolve("events.jsonl"), b, StandardCharsets.UTF_8);
    Path refOut = dir.resolve("ref.jsonl");
    long full = KillLoop.runToEnd(command(input, dir.resolve("ref-state"), refOut, "ref-bad"));
    byte[] bad = Files.readAllBytes(dir.resolve("ref-bad.jsonl"));
    byte[] reasons = Files.readAllBytes(dir.resolve("ref-bad.jsonl.reasons.tsv"));
    assertThat(Files.readAllLines(dir.resolve("ref-bad.jsonl.reasons.tsv")))
        .hasSize(Files.readAllLines(dir.resolve("ref-bad.jsonl")).size())
        .hasSizeGreaterThan(1000);

    KillLoop.run(
        dir,
        "reasons",
        (state, out) -> command(input, state, out, out.getFileName() + "-bad"),
        full,
        1.0,
        8,
        (round, kills, out) -> {
          Path q = dir.resolve(out.getFileName() + "-bad.jsonl");
          assertThat(Files.readAllBytes(out)).isEqualTo(Files.readAllBytes(refOut));
          assertThat(Files.readAllBytes(q)).as("quarantine after %d kills", kills).isEqualTo(bad);
          assertThat(Files.readAllBytes(Path.of(q + ".reasons.tsv")))
              .as("reasons after %d kills", kills)
              .isEqualTo(reasons);
        });
  }

  private List<String> command(Path input, Path state, Path out, String bad) {
    return new ArrayList<>(
        List.of(
            "dedup",
            "--key",
            "id",
            "--state",
            state.toString(),
            "--checkpoint-every",
            "2000",
            "--on-bad-record",
            "quarantine=" + dir.resolve(bad + ".jsonl"),
            "-q",
            "-o",
            out.toString(),
            input.toString()));
  }
}
