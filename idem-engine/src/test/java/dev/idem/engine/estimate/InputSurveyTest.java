package dev.idem.engine.estimate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idem.core.KeyNormalizer;
import dev.idem.engine.JobException;
import dev.idem.engine.records.KeySpec;
import dev.idem.engine.records.RecordFormat;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.SplittableRandom;
import java.util.zip.GZIPOutputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Surveys of generated inputs with known record and distinct-key counts. */
class InputSurveyTest {

  @TempDir Path dir;

  /** Writes records whose ids repeat: {@code distinct} ids over {@code records} records. */
  private Path jsonl(String name, int records, int distinct, long seed) throws IOException {
    Path file = dir.resolve(name);
    SplittableRandom random = new SplittableRandom(seed);
    try (OutputStream out =
        name.endsWith(".gz")
            ? new GZIPOutputStream(Files.newOutputStream(file))
            : Files.newOutputStream(file)) {
      for (int i = 0; i < records; i++) {
        // every id once first, then repeats of earlier ones
        int id = i < distinct ? i : random.nextInt(distinct);
        out.write(
            ("{\"id\":\"k\\u00e9-" + id + "\",\"v\":" + i + "}\n")
                .getBytes(StandardCharsets.UTF_8));
      }
    }
    return file;
  }

  private static InputSurvey.Result survey(List<Path> files, long sampleBytes) throws IOException {
    return InputSurvey.run(
        files.stream().map(Path::toString).toList(),
        RecordFormat.JSONL,
        KeySpec.jsonField("id", false),
        false,
        KeyNormalizer.identity(),
        1 << 20,
        sampleBytes);
  }

  @Test
  void countsRecordsExactlyAndDistinctKeysWithinTheInterval() throws IOException {
    for (int[] c : new int[][] {{1_500, 1_000}, {130_000, 100_000}}) {
      Path plain = jsonl("a-" + c[1] + ".jsonl", c[0] / 2, c[1] / 2, c[1]);
      Path gz = jsonl("b-" + c[1] + ".jsonl.gz", c[0] / 2, c[1] / 2, c[1] + 1);
      // the two files share their first half of ids: distinct ids are c[1] / 2 in all
      InputSurvey.Result r = survey(List.of(plain, gz), Long.MAX_VALUE);
      assertThat(r.complete()).isTrue();
      assertThat(r.records()).isEqualTo(c[0] / 2 * 2);
      assertThat(r.badRecords()).isZero();
      assertThat(r.whole().low()).isLessThanOrEqualTo(c[1] / 2);
      assertThat(r.whole().high()).isGreaterThanOrEqualTo(c[1] / 2);
      // "ké-123" is 7 to 10 bytes of UTF-8 once unescaped
      assertThat(r.meanKeyBytes()).isBetween(4.0, 11.0);
    }
  }

  @Test
  void aSampleIsExtrapolatedByBytes() throws IOException {
    Path file = jsonl("big.jsonl", 200_000, 200_000, 7);
    long size = Files.size(file);
    InputSurvey.Result r = survey(List.of(file), size / 4);
    assertThat(r.complete()).isFalse();
    assertThat(r.bytesRead()).isBetween(size / 4, size / 2);
    // all keys distinct: the extrapolated interval must reach the truth, records within 5 %
    assertThat((double) r.recordsInWhole()).isBetween(190_000.0, 210_000.0);
    assertThat(r.whole().high()).isGreaterThanOrEqualTo(200_000 * 0.99);
    assertThat(r.whole().low()).isLessThanOrEqualTo(200_000);
  }

  @Test
  void gzipFilesAreSampledWhole() throws IOException {
    Path a = jsonl("part-1.jsonl.gz", 50_000, 50_000, 1);
    Path b = jsonl("part-2.jsonl.gz", 50_000, 50_000, 2);
    InputSurvey.Result r = survey(List.of(a, b), 1);
    // the first file whole, then stop: half the records, extrapolated to all of them
    assertThat(r.records()).isEqualTo(50_000);
    assertThat(r.bytesRead()).isEqualTo(Files.size(a));
    assertThat((double) r.recordsInWhole()).isBetween(95_000.0, 105_000.0);
  }

  @Test
  void standardInputAndBadKeysAreReported() throws IOException {
    assertThatThrownBy(() -> survey(List.of(Path.of("-")), Long.MAX_VALUE))
        .isInstanceOf(JobException.class)
        .hasMessageContaining("standard input");
    Path bad = Files.writeString(dir.resolve("bad.jsonl"), "{\"id\":1}\n{\"x\":2}\nnot json\n");
    InputSurvey.Result r = survey(List.of(bad), Long.MAX_VALUE);
    assertThat(r.records()).isEqualTo(3);
    assertThat(r.badRecords()).isEqualTo(2);
  }
}
