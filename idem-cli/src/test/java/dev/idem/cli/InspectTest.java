package dev.idem.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.idem.engine.DurableDeduplicator;
import dev.idem.engine.Idem;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code idem inspect} reads every kind of state idem writes — dedup, sort-dedup, near-dup, split,
 * the library's durable set — naming its kind, its inputs and settings and its last checkpoint, in
 * text and in JSON; a directory that is none of them, or none at all, is said to be so.
 */
class InspectTest {

  @TempDir Path dir;

  private Path input() throws IOException {
    StringBuilder sb = new StringBuilder();
    for (int i = 0; i < 500; i++) {
      sb.append("{\"id\":\"k").append(i % 300).append("\",\"text\":\"words ").append(i % 40);
      sb.append(" and more words\"}\n");
    }
    Path in = dir.resolve("in.jsonl");
    Files.writeString(in, sb);
    return in;
  }

  private Cli.Result inspect(Path state, String... more) {
    String[] args = new String[more.length + 2];
    args[0] = "inspect";
    System.arraycopy(more, 0, args, 1, more.length);
    args[args.length - 1] = state.toString();
    return Cli.run(args);
  }

  private void run(String... args) {
    Cli.Result r = Cli.run(args);
    assertThat(r.status()).as(r.err()).isZero();
  }

  @Test
  void aDedupState() throws IOException {
    Path in = input();
    Path st = dir.resolve("st");
    run("dedup", "--key", "id", "-q", "--state", st.toString(), "-o", out(), in.toString());
    Cli.Result r = inspect(st);
    assertThat(r.status()).as(r.err()).isZero();
    assertThat(r.out()).contains("checkpoint").contains("(complete)").contains("300 kept");
    JsonNode json = new ObjectMapper().readTree(inspect(st, "--json").out());
    assertThat(json.get("kind").asText()).isEqualTo("dedup");
    assertThat(json.get("identity").get("settings").get("key").asText()).isEqualTo("json:/id");
  }

  @Test
  void aSortDedupState() throws IOException {
    Path in = input();
    Path st = dir.resolve("st");
    run("sort-dedup", "--key", "id", "-q", "--state", st.toString(), "-o", out(), in.toString());
    Cli.Result r = inspect(st);
    assertThat(r.status()).as(r.err()).isZero();
    assertThat(r.out())
        .contains("sort-dedup (SORT-DEDUP.json, layout version 2)")
        .contains(in.toString())
        .contains("key json:/id")
        .contains("phase DONE")
        .contains("kept 300");
  }

  @Test
  void aNearDupState() throws IOException {
    Path in = input();
    Path st = dir.resolve("st");
    run(
        "near-dup",
        "--content",
        "text",
        "-q",
        "--state",
        st.toString(),
        "-o",
        out(),
        in.toString());
    Cli.Result r = inspect(st);
    assertThat(r.status()).as(r.err()).isZero();
    assertThat(r.out()).contains("near-dup (NEAR-DUP.json").contains("phase DONE");
    assertThat(r.out()).contains("judged.bin");
  }

  @Test
  void aSplitsOutputDirectory() throws IOException {
    Path in = input();
    Path shards = dir.resolve("shards");
    run("split", "--key", "id", "--shards", "2", "-q", "-o", shards.toString(), in.toString());
    Cli.Result r = inspect(shards);
    assertThat(r.status()).as(r.err()).isZero();
    assertThat(r.out()).contains("split (checkpoint.json").contains("complete true");
  }

  @Test
  void aLibrarysDurableSet() throws IOException {
    Path st = dir.resolve("library");
    try (DurableDeduplicator d = Idem.deduplicator().expectedKeys(1000).state(st).open()) {
      d.firstSeen("a");
      d.commit("offset=42".getBytes(StandardCharsets.UTF_8));
    }
    Cli.Result r = inspect(st);
    assertThat(r.status()).as(r.err()).isZero();
    assertThat(r.out()).contains("durable-set").contains("token offset=42").contains("keys 1");
  }

  @Test
  void whatIsNoStateIsSaidToBeSo() throws IOException {
    Cli.Result none = inspect(dir.resolve("nowhere"));
    assertThat(none.status()).isEqualTo(1);
    assertThat(none.err()).contains("nowhere: no such directory").doesNotContain("Exception");
    Path other = Files.createDirectories(dir.resolve("other"));
    Files.writeString(other.resolve("notes.txt"), "mine");
    Cli.Result notState = inspect(other);
    assertThat(notState.status()).isEqualTo(1);
    assertThat(notState.err()).contains("not an idem state directory");
  }

  private String out() {
    return dir.resolve("out-" + System.nanoTime() + ".jsonl").toString();
  }
}
