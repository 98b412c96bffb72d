package dev.idem.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code idem dedup --history} as a user meets it: two batches, and what is refused, in a line. */
class HistoryCommandTest {

  @TempDir Path dir;

  private Cli.Result dedup(String... args) {
    String[] all = new String[args.length + 1];
    all[0] = "dedup";
    System.arraycopy(args, 0, all, 1, args.length);
    return Cli.run(all);
  }

  @Test
  void theSecondBatchKeepsOnlyWhatTheFirstDidNotHave() throws IOException {
    Path monday = dir.resolve("monday.jsonl");
    Path tuesday = dir.resolve("tuesday.jsonl");
    Files.writeString(monday, "{\"id\":1}\n{\"id\":2}\n{\"id\":1,\"again\":true}\n");
    Files.writeString(tuesday, "{\"id\":2,\"t\":1}\n{\"id\":3}\n{\"id\":3,\"t\":2}\n");
    String h = dir.resolve("h").toString();

    Cli.Result first = dedup("--key", "id", "--history", h, "-o", dir + "/m.jsonl", monday + "");
    Cli.Result second = dedup("--key", "id", "--history", h, "-o", dir + "/t.jsonl", tuesday + "");

    assertThat(first.status()).as(first.err()).isZero();
    assertThat(second.status()).as(second.err()).isZero();
    assertThat(first.err()).contains("history " + h + ": run 1; 0 keys from earlier runs");
    assertThat(second.err()).contains("run 2; 2 keys from earlier runs");
    assertThat(Files.readString(dir.resolve("m.jsonl"))).isEqualTo("{\"id\":1}\n{\"id\":2}\n");
    assertThat(Files.readString(dir.resolve("t.jsonl"))).isEqualTo("{\"id\":3}\n");
  }

  @Test
  void whatAHistoryCannotAnswerIsRefusedInOneLine() throws IOException {
    Path in = dir.resolve("in.txt");
    Files.writeString(in, "a\n");
    String h = dir.resolve("h").toString();
    String out = dir.resolve("out.txt").toString();
    assertRefused(
        dedup("--whole-line", "--history", h, "--state", dir + "/st", "-o", out, in + ""),
        "--history does not go with --state");
    assertRefused(
        dedup("--whole-line", "--history", h, "--window", "1m", "-o", out, in + ""),
        "--history does not go with --window");
    assertRefused(dedup("--whole-line", "--history", h, in + ""), "--history needs -o FILE");
    assertRefused(dedup("--whole-line", "--history", h, "-o", out, "-"), "reads its inputs again");
    Path parquet = dir.resolve("in.parquet");
    Files.write(parquet, new byte[] {'P', 'A', 'R', '1'});
    assertRefused(
        dedup("--key", "id", "--history", h, "-o", dir + "/p/", parquet + ""),
        "--history takes text inputs");
    assertRefused(dedup("--whole-line", "--history", h, "-o", h + "/out.txt", in + ""), "history");
  }

  private static void assertRefused(Cli.Result r, String message) {
    assertThat(r.status()).as(r.err()).isIn(1, 2);
    assertThat(r.err()).contains(message).doesNotContain("Exception").doesNotContain("\tat ");
  }
}
