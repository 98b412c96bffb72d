package dev.idem.engine.records;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idem.core.Fingerprinter;
import dev.idem.engine.JobException;
import dev.idem.engine.input.InputFile;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.zip.CRC32C;
import java.util.zip.GZIPOutputStream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What a tracking {@link RecordSource} says was read equals the CRC32C of the inputs' bytes up to
 * every record, whatever the batches, headers skipped, records too long to keep, quoted line
 * breaks, gzip, empty inputs and the place reading began.
 */
class InputReadsTest {

  @TempDir Path dir;

  private final List<InputFile> inputs = new ArrayList<>();

  /** Each input's bytes, decompressed. */
  private final List<byte[]> contents = new ArrayList<>();

  private static final RecordSource.Settings CSV =
      new RecordSource.Settings(
          RecordFormat.CSV,
          true,
          KeyExtractor.of(KeySpec.column("id"), RecordFormat.CSV),
          Fingerprinter.xxh3(),
          false,
          200);

  @BeforeEach
  void inputs() throws IOException {
    Random r = new Random(15);
    add("a.csv", csv(r, 400), false);
    add("b.csv.gz", csv(r, 300), true);
    add("c.csv", "id,text\r\n".getBytes(StandardCharsets.US_ASCII), false); // a header alone
    add("d.csv", new byte[0], false);
    add("e.csv", csv(r, 500), false);
  }

  /** Rows with CRLF or LF, quoted line breaks, and some longer than the 200-byte limit. */
  private static byte[] csv(Random r, int rows) {
    StringBuilder sb = new StringBuilder(r.nextBoolean() ? "id,text\r\n" : "id,text\n");
    for (int i = 0; i < rows; i++) {
      String text =
          switch (r.nextInt(10)) {
            case 0 -> "\"two\nlines\"";
            case 1 -> "x".repeat(150 + r.nextInt(300)); // over the limit one time in two
            default -> "t" + r.nextInt(1000);
          };
      sb.append(r.nextInt(500)).append(',').append(text).append(r.nextInt(4) == 0 ? "\r\n" : "\n");
    }
    if (r.nextBoolean()) {
      sb.append("last,without newline");
    }
    return sb.toString().getBytes(StandardCharsets.UTF_8);
  }

  private void add(String name, byte[] content, boolean gzip) throws IOException {
    Path p = dir.resolve(name);
    try (OutputStream out =
        gzip ? new GZIPOutputStream(Files.newOutputStream(p)) : Files.newOutputStream(p)) {
      out.write(content);
    }
    inputs.add(InputFile.identify(p));
    contents.add(content);
  }

  private long crc(int file, long length) {
    CRC32C c = new CRC32C();
    c.update(contents.get(file), 0, (int) length);
    return c.getValue();
  }

  @Test
  void whatWasReadIsRightThroughEveryRecordFromTheStart() throws IOException {
    assertThat(readAndCheck(0, 0, 0, null, false, 300, 7)).isGreaterThan(1200);
    assertThat(
            readAndCheck(0, 0, 0, null, false, RecordBatch.TARGET_BYTES, RecordBatch.MAX_RECORDS))
        .isGreaterThan(1200);
  }

  @Test
  void aResumedJobCarriesOnTheChecksumOfWhatItReadBefore() throws IOException {
    long offset = lineEndAfter(1, 5000);
    long line = lineCount(1, offset);
    InputRead before =
        new InputRead(offset, crc(1, offset), SampledBlocks.BLOCK, new long[0], null, null);
    assertThat(readAndCheck(1, offset, line, before, true, 300, 7)).isGreaterThan(500);
    assertThat(readAndCheck(1, offset, line, before, false, 300, 7)).isGreaterThan(500);
    // a state of an older version: what was read of the first input is not known, the rest is
    InputRead unknown = new InputRead(offset, null, SampledBlocks.BLOCK, null, null, null);
    try (RecordSource source =
        RecordSource.tracking(inputs, CSV, 1, offset, line, unknown, true, 300, 7)) {
      RecordBatch b = source.next();
      source.reads().handled(b, 0);
      assertThat(source.reads().current().crc()).isNull();
    }
  }

  @Test
  void theResumedInputIsRefusedWhenWhatWasReadOfItChanged() {
    long offset = lineEndAfter(1, 5000);
    InputRead wrong =
        new InputRead(offset, crc(1, offset) ^ 1, SampledBlocks.BLOCK, new long[0], null, null);
    try (RecordSource source =
        RecordSource.tracking(inputs, CSV, 1, offset, lineCount(1, offset), wrong, true, 300, 7)) {
      assertThatThrownBy(source::next)
          .isInstanceOf(JobException.class)
          .hasMessageContaining(
              inputs.get(1).path()
                  + ": its first "
                  + String.format("%,d", offset)
                  + " bytes, which the job read, differ");
    }
  }

  /**
   * Reads from {@code file}, {@code offset} to the end, checking after every record what the source
   * says was read of the input being read and of those before; returns the records.
   */
  private int readAndCheck(
      int file,
      long offset,
      long line,
      InputRead before,
      boolean verify,
      int batchBytes,
      int batchRecords)
      throws IOException {
    int records = 0;
    try (RecordSource source =
        RecordSource.tracking(
            inputs, CSV, file, offset, line, before, verify, batchBytes, batchRecords)) {
      InputReads reads = source.reads();
      while (true) {
        RecordBatch b = source.next();
        for (int i = 0; i < b.count; i++) {
          reads.handled(b, i);
          int f = b.fileIndex[i];
          InputRead now = reads.current();
          assertThat(now.bytes()).isEqualTo(b.endOffset[i]);
          assertThat(now.crc())
              .as("input %d through byte %d", f, b.endOffset[i])
              .isEqualTo(crc(f, b.endOffset[i]));
          for (int e = file; e < f; e++) {
            InputRead ended = reads.ended(e);
            assertThat(ended.bytes()).isEqualTo(contents.get(e).length);
            assertThat(ended.crc())
                .as("input %d, ended", e)
                .isEqualTo(crc(e, contents.get(e).length));
          }
          records++;
        }
        boolean end = b.endOfInput;
        source.recycle(b);
        if (end) {
          break;
        }
      }
      InputRead last = reads.current(); // after its batch went back to the reading thread
      assertThat(last.crc()).isEqualTo(crc(4, last.bytes()));
      assertThat(last.bytes()).isEqualTo(contents.get(4).length);
    }
    return records;
  }

  private long lineEndAfter(int file, int from) {
    byte[] c = contents.get(file);
    int i = from;
    while (c[i] != '\n' || c[i - 1] == 'o') { // not inside "two\nlines"
      i++;
    }
    return i + 1;
  }

  private long lineCount(int file, long offset) {
    long n = 0;
    for (int i = 0; i < offset; i++) {
      n += contents.get(file)[i] == '\n' ? 1 : 0;
    }
    return n;
  }

  @Test
  void sampledBlocksSpreadOverWhatWasReadAndSeeAnEditInOne() throws IOException {
    byte[] content = new byte[1 << 20];
    new Random(3).nextBytes(content);
    Path file = Files.write(dir.resolve("blocks.bin"), content);
    SampledBlocks s = new SampledBlocks();
    for (long limit = 0; limit <= content.length; limit += 10_000) {
      s.extendTo(file, limit);
      long[] blocks = s.blocks();
      assertThat(blocks.length).isBetween(s.stride() > SampledBlocks.BLOCK ? 16 : 0, 32);
      assertThat((blocks.length - 1) * s.stride() + SampledBlocks.BLOCK)
          .isLessThanOrEqualTo(Math.max(limit, SampledBlocks.BLOCK));
      assertThat(SampledBlocks.firstDifference(file, s.stride(), blocks)).isNull();
    }
    assertThat(s.stride()).isEqualTo(32 * 1024);
    ByteArrayOutputStream edited = new ByteArrayOutputStream();
    edited.write(content, 0, 5 * 32 * 1024 + 100);
    edited.write(content[5 * 32 * 1024 + 100] ^ 1);
    edited.write(content, 5 * 32 * 1024 + 101, content.length - 5 * 32 * 1024 - 101);
    Files.write(file, edited.toByteArray());
    assertThat(SampledBlocks.firstDifference(file, s.stride(), s.blocks()))
        .isEqualTo("bytes 163,840-167,935");
  }
}
