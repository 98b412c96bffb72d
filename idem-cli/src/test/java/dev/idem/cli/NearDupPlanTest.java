package dev.idem.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code idem plan --near-dup}: bands, S-curve, memory and the command, as near-dup runs them. */
class NearDupPlanTest {

  @TempDir Path dir;

  @Test
  void thePlanNamesTheBandsNearDupChoosesAndItsMemory() {
    Cli.Result r = Cli.run("plan", "--near-dup", "--records", "1M", "--memory", "512m", "--verify");
    assertThat(r.status()).as(r.err()).isZero();
    assertThat(r.out().replaceAll("\\s+", " ")) // as one line: the report wraps at 80 columns
        .contains("idem near-dup for 1,000,000 documents at threshold 0.8")
        .contains("LSH 9 bands × 13 rows of 128 permutations")
        .contains("0.399 at 0.80")
        .contains("does NOT fit in --memory 512")
        .contains(
            "idem near-dup --content FIELD --threshold 0.8 --verify --memory 512m --state STATE");
    java.util.regex.Matcher split =
        java.util.regex.Pattern.compile(
                "judging holds the first ([\\d,]+) documents' tables in memory and the other "
                    + "([\\d,]+) documents' in RocksDB in --tmp")
            .matcher(r.out().replaceAll("\\s+", " ")); // as one line: the report wraps at 80
    assertThat(split.find()).as(r.out()).isTrue();
    long inMemory = Long.parseLong(split.group(1).replace(",", ""));
    long onDisk = Long.parseLong(split.group(2).replace(",", ""));
    assertThat(inMemory + onDisk).isEqualTo(1_000_000);
    // 512 MiB holds at most 512 MiB of entries at about 5 KB a document (500 words of shingles)
    assertThat(inMemory).isPositive().isLessThan((512L << 20) / 4_000);
    Cli.Result small = Cli.run("plan", "--near-dup", "--records", "10000", "--memory", "512m");
    assertThat(small.out().replaceAll("\\s+", " ")).contains("fits in --memory");
  }

  @Test
  void aSampleGivesTheDocumentsAndTheField() throws IOException {
    Path in = dir.resolve("docs.jsonl");
    StringBuilder b = new StringBuilder();
    for (int i = 0; i < 100; i++) {
      b.append("{\"body\":\"document number ").append(i).append(" has a few words\"}\n");
    }
    Files.writeString(in, b);
    Cli.Result r =
        Cli.run(
            "plan",
            "--near-dup",
            "--threshold",
            "0.7",
            "--sample",
            in.toString(),
            "--content",
            "body");
    assertThat(r.status()).as(r.err()).isZero();
    assertThat(r.out())
        .contains("for 100 documents at threshold 0.7")
        .contains("idem near-dup --content body --threshold 0.7 --state STATE -o OUT " + in);
    // the bands the plan names are the ones the job chooses
    Cli.Result job = Cli.run("near-dup", "--content", "body", "--threshold", "0.7", in.toString());
    assertThat(job.err()).contains("LSH 14 bands × 9 rows");
    assertThat(r.out().replaceAll("\\s+", " ")).contains("LSH 14 bands × 9 rows");
  }

  @Test
  void givenBandsAndRowsArePlannedAsTheJobWouldRunThem() {
    Cli.Result r =
        Cli.run("plan", "--near-dup", "--records", "1M", "--bands", "14", "--rows", "8", "--json");
    assertThat(r.status()).as(r.err()).isZero();
    assertThat(r.out())
        .contains("\"bands\" : 14")
        .contains("\"rows\" : 8")
        .contains("\"num_perm\" : 112") // bands × rows, as near-dup takes it
        .contains("idem near-dup --content FIELD --threshold 0.8 --bands 14 --rows 8 --state");
    Cli.Result chosen = Cli.run("plan", "--near-dup", "--records", "1M", "--json");
    // 14 band tables of 112 components cost more than 9 of 128: the plan counts the given ones
    assertThat(bytesPerDocument(r.out())).isGreaterThan(bytesPerDocument(chosen.out()));
  }

  @Test
  void bandsThatTheSignatureCannotHoldAreRefusedAsNearDupRefusesThem() throws IOException {
    Cli.Result alone = Cli.run("plan", "--near-dup", "--records", "1M", "--bands", "14");
    assertThat(alone.status()).isEqualTo(2);
    assertThat(alone.err()).contains("--bands and --rows go together");
    Path in = dir.resolve("in.jsonl");
    Files.writeString(in, "{\"text\":\"a b c d e f\"}\n");
    String tooMany = "--bands 20 --rows 8 --num-perm 128";
    for (String command :
        new String[] {
          "plan --near-dup --records 1M " + tooMany, "near-dup --content text " + tooMany + " " + in
        }) {
      Cli.Result r = Cli.run(command.split(" "));
      assertThat(r.status()).as(command).isEqualTo(2);
      assertThat(r.err()).contains("--bands × --rows (20 × 8 = 160) is more than --num-perm 128");
    }
  }

  private static long bytesPerDocument(String json) {
    java.util.regex.Matcher m =
        java.util.regex.Pattern.compile("\"bytes_per_document\" : (\\d+)").matcher(json);
    assertThat(m.find()).as(json).isTrue();
    return Long.parseLong(m.group(1));
  }

  @Test
  void withoutDocumentsItSaysWhatToGive() {
    Cli.Result r = Cli.run("plan", "--near-dup");
    assertThat(r.status()).isEqualTo(2);
    assertThat(r.err()).contains("--records N");
  }
}
