package dev.idem.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.idem.parquet.ParquetLake;
import dev.idem.parquet.ParquetRows;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import org.junit.jupiter.api.Test;

/**
 * {@code idem dedup} over Parquet: the command as users type it, through picocli, and killed.
 *
 * <p>The kill test runs the real CLI in child JVMs and SIGKILLs them at random moments: 10 kills in
 * CI (about 20–40 s). For a longer soak by hand, raise {@code KILLS} (e.g. 200) and the lake's
 * size.
 */
class ParquetDedupCommandTest extends ChildProcessTest {

  private static final int KILLS = 10;

  @Test
  void dedupsALakeByANestedColumnIntoPartFilesWithTheSummaryAndStats() throws Exception {
    ParquetLake lake =
        ParquetLake.write(Files.createDirectories(dir.resolve("lake")), 11, 3, 600, 500, 0);
    Path out = dir.resolve("clean");
    Path stats = dir.resolve("stats.json");
    Cli.Result r =
        Cli.run(
            "dedup",
            "--key",
            "meta.url",
            "--stats-json",
            stats.toString(),
            "-o",
            out + "/",
            dir.resolve("lake") + "/*.parquet");
    assertThat(r.status()).as(r.err()).isZero();
    List<String> expected = ParquetLake.reference(lake);
    assertThat(ParquetRows.readParts(out)).containsExactlyElementsOf(expected);
    assertThat(r.err())
        .contains("1,800 rows from 3 Parquet files")
        .contains(String.format(Locale.ROOT, "%,d kept", expected.size()));
    JsonNode s = new ObjectMapper().readTree(stats.toFile());
    assertThat(s.get("format").asText()).isEqualTo("parquet");
    assertThat(s.get("kept").asLong()).isEqualTo(expected.size());
    assertThat(s.get("records").asLong()).isEqualTo(1800);
  }

  @Test
  void optionsForTextAndMissingOutputsAreUsageErrors() throws Exception {
    ParquetLake lake =
        ParquetLake.write(Files.createDirectories(dir.resolve("lake")), 12, 1, 50, 20, 0);
    String in = lake.files().get(0).toString();
    Cli.Result window = Cli.run("dedup", "--key", "id", "--window", "10m", "-o", "o/", in);
    assertThat(window.status()).isEqualTo(2);
    assertThat(window.err()).contains("--window does not apply to Parquet inputs");
    Cli.Result stdout = Cli.run("dedup", "--key", "id", in);
    assertThat(stdout.status()).isEqualTo(2);
    assertThat(stdout.err()).contains("needs -o DIR");
    Cli.Result sort = Cli.run("sort-dedup", "--key", "id", in);
    assertThat(sort.status()).isEqualTo(2);
    assertThat(sort.err()).contains("Parquet inputs are read by idem dedup only");
    Cli.Result nulls =
        Cli.run(
            "dedup",
            "--key",
            "meta.url",
            "-o",
            dir.resolve("o2").toString(),
            ParquetLake.write(Files.createDirectories(dir.resolve("nulls")), 13, 1, 200, 20, 3)
                .files()
                .get(0)
                .toString());
    assertThat(nulls.status()).isEqualTo(1);
    assertThat(nulls.err()).contains("key column meta.url is null").doesNotContain("Exception");
  }

  @Test
  void aKilledJobResumesWithTheRowsOfAnUninterruptedRun() throws Exception {
    ParquetLake lake =
        ParquetLake.write(Files.createDirectories(dir.resolve("lake")), 21, 6, 4000, 9000, 0);
    List<String> expected = ParquetLake.reference(lake);
    List<String> expectedDropped = ParquetLake.duplicates(lake);
    Path lakeDir = dir.resolve("lake");
    long full =
        KillLoop.runToEnd(command(dir.resolve("full-state"), dir.resolve("full-out"), lakeDir));
    assertThat(ParquetRows.readParts(dir.resolve("full-out"))).containsExactlyElementsOf(expected);
    assertThat(ParquetRows.readParts(dropped(dir.resolve("full-out"))))
        .containsExactlyElementsOf(expectedDropped);
    KillLoop.run(
        dir,
        "parquet",
        (state, out) -> command(state, parts(out), lakeDir),
        full,
        1.0,
        KILLS,
        (round, kills, out) -> {
          assertThat(ParquetRows.readParts(parts(out)))
              .as("rows after %d kills", kills)
              .containsExactlyElementsOf(expected);
          assertThat(ParquetRows.readParts(dropped(parts(out))))
              .as("dropped rows after %d kills", kills)
              .containsExactlyElementsOf(expectedDropped);
        });
  }

  private static Path dropped(Path out) {
    return out.resolveSibling(out.getFileName() + ".dropped");
  }

  private static Path parts(Path out) {
    return out.resolveSibling(out.getFileName() + ".parts");
  }

  private static List<String> command(Path state, Path out, Path lake) {
    return List.of(
        "dedup",
        "--key",
        "/meta/url",
        "--state",
        state.toString(),
        "--checkpoint-every",
        "1500",
        "--quiet",
        "--dropped",
        dropped(out).toString(),
        "-o",
        out.toString(),
        lake.toString());
  }
}
