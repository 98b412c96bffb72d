package dev.idem.engine.estimate;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idem.engine.input.InputFile;
import dev.idem.engine.records.RecordFormat;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.zip.GZIPOutputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The record count a job sizes for when it is given no key count. */
class InputEstimateTest {

  @TempDir Path dir;

  private long estimate(Path... files) throws IOException {
    return InputEstimate.distinctKeysUpperBound(
        InputFile.expand(java.util.Arrays.stream(files).map(Path::toString).toList()),
        RecordFormat.LINES);
  }

  private Path lines(String name, int count, int from, int width) throws IOException {
    StringBuilder b = new StringBuilder();
    for (int i = 0; i < count; i++) {
      String n = Integer.toString(from + i);
      b.append("x".repeat(Math.max(0, width - n.length() - 1))).append(n).append('\n');
    }
    return Files.writeString(dir.resolve(name), b);
  }

  @Test
  void aSmallFileIsCountedExactly() throws IOException {
    Path f = lines("small.txt", 50_000, 0, 20); // 1,000,000 bytes: read whole
    assertThat(estimate(f)).isBetween(50_000L, 50_001L); // one rounding up at most
    // a last line without its line break is a record too
    Path g = dir.resolve("unterminated.txt");
    Files.writeString(g, "a\nb\nc\n".repeat(1000) + "last");
    assertThat(estimate(g)).isBetween(3001L, 3002L);
  }

  @Test
  void recordsThatShortenAlongTheFileAreNotJudgedByTheHead() throws IOException {
    // 4 MB of 200-byte lines, then 16 MB of 20-byte lines: 820,000 records. The head alone
    // (the estimate before it sampled record sizes) saw 200-byte records and guessed 100,000.
    Path f = dir.resolve("mixed.txt");
    try (OutputStream out = Files.newOutputStream(f)) {
      out.write(Files.readAllBytes(lines("long.txt", 20_000, 0, 200)));
      out.write(Files.readAllBytes(lines("short.txt", 800_000, 0, 20)));
    }
    long records = 820_000;
    assertThat(estimate(f)).isBetween(records * 9 / 10, records * 13 / 10);
  }

  @Test
  void evenLinesAreEstimatedClosely() throws IOException {
    Path f = lines("even.txt", 1_000_000, 0, 30); // 30 MB
    assertThat(estimate(f)).isBetween(990_000L, 1_010_000L);
    Path g = lines("even2.txt", 500_000, 0, 30);
    assertThat(estimate(f, g)).isBetween(1_485_000L, 1_515_000L);
  }

  @Test
  void gzipIsJudgedByItsDecompressedHeadAndStdinByTheFiles() throws IOException {
    Path gz = dir.resolve("in.txt.gz");
    try (OutputStream out = new GZIPOutputStream(Files.newOutputStream(gz))) {
      out.write("0123456789\n".repeat(10_000).getBytes(StandardCharsets.US_ASCII));
    }
    long size = Files.size(gz);
    // 11-byte records, the stored size taken as a fifth of the data
    assertThat(estimate(gz)).isEqualTo(Math.max(1024, (long) Math.ceil(size * 5 / 11.0)));
    assertThat(
            InputEstimate.distinctKeysUpperBound(
                InputFile.expand(List.of("-")), RecordFormat.LINES))
        .isEqualTo(10_000_000);
    Path empty = Files.writeString(dir.resolve("empty.txt"), "");
    assertThat(estimate(empty)).isEqualTo(1024);
  }
}
