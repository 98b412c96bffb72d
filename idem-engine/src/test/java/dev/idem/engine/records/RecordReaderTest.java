package dev.idem.engine.records;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idem.engine.input.LineReader;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class RecordReaderTest {

  @Test
  void aLineOverTheLimitIsOneBadRecordNamingItsSizeAndTheLimitAsWritten() throws IOException {
    RecordReader r = reader("x".repeat(2000) + "\r\nok\n", false, 1 << 10);
    assertThat(r.next()).isTrue();
    assertThat(r.problem()).isEqualTo("record of 2,000 bytes is longer than --max-record-bytes 1k");
    assertThat(r.length()).isZero();
    assertThat(r.endOffset()).isEqualTo(2002);
    assertRecord(r, "ok", 2, 2005);
    assertThat(r.next()).isFalse();
    RecordReader odd = reader("x".repeat(1001) + "\n", false, 1000);
    assertThat(odd.next()).isTrue();
    assertThat(odd.problem())
        .isEqualTo("record of 1,001 bytes is longer than --max-record-bytes 1000");
  }

  @Test
  void aQuotedCsvRecordOverTheLimitAcrossLinesIsOneBadRecord() throws IOException {
    // 17 bytes: the inner line breaks count, the final one does not
    RecordReader r = reader("\"abcd\r\nefgh\nij\",1\nok,2\n", true, 10);
    assertThat(r.next()).isTrue();
    assertThat(r.problem()).isEqualTo("record of 17 bytes is longer than --max-record-bytes 10");
    assertThat(r.lineNumber()).isEqualTo(1);
    assertThat(r.lineNumberAfter()).isEqualTo(3);
    assertRecord(r, "ok,2", 4, 23);
    assertThat(r.next()).isFalse();
  }

  @Test
  void aCsvRecordAcrossLinesIsMeasuredLikeALine() throws IOException {
    String record = "\"ab\r\ncd\",e"; // 10 bytes, as a one-line record of 10 bytes would be
    RecordReader fits = reader(record + "\r\n", true, 10);
    assertThat(fits.next()).isTrue();
    assertThat(fits.problem()).isNull();
    assertThat(
            new String(
                fits.bytes(),
                fits.offset(),
                fits.length() + fits.terminatorLength(),
                StandardCharsets.ISO_8859_1))
        .isEqualTo(record + "\r\n");
    assertThat(fits.terminatorLength()).isEqualTo(2);
    RecordReader over = reader(record + "\r\n", true, 9);
    assertThat(over.next()).isTrue();
    assertThat(over.problem()).isEqualTo("record of 10 bytes is longer than --max-record-bytes 9");
    assertThat(over.endOffset()).isEqualTo(12);
  }

  @Test
  void anOverlongLineThatClosesAQuotedFieldEndsTheBadRecord() throws IOException {
    RecordReader r = reader("\"a\n" + "x".repeat(50) + "\",1\nok,2\n", true, 10);
    assertThat(r.next()).isTrue();
    assertThat(r.problem()).isEqualTo("record of 56 bytes is longer than --max-record-bytes 10");
    assertThat(r.lineNumberAfter()).isEqualTo(2);
    assertRecord(r, "ok,2", 3, 62);
  }

  @Test
  void anOverlongLineThatOpensAQuotedFieldTakesItsContinuationWithIt() throws IOException {
    RecordReader r = reader("\"" + "x".repeat(50) + "\r\nmore\",1\nok,2", true, 10);
    assertThat(r.next()).isTrue();
    assertThat(r.problem()).isEqualTo("record of 60 bytes is longer than --max-record-bytes 10");
    assertThat(r.lineNumberAfter()).isEqualTo(2);
    assertRecord(r, "ok,2", 3, 65);
    // the same lines where quotes do not span lines: one record a line
    RecordReader lines = reader("\"" + "x".repeat(50) + "\r\nmore\",1\nok,2", false, 10);
    assertThat(lines.next()).isTrue();
    assertThat(lines.problem()).startsWith("record of 51 bytes");
    assertRecord(lines, "more\",1", 2, 61);
  }

  private static void assertRecord(RecordReader r, String content, long line, long endOffset)
      throws IOException {
    assertThat(r.next()).isTrue();
    assertThat(r.problem()).isNull();
    assertThat(new String(r.bytes(), r.offset(), r.length(), StandardCharsets.ISO_8859_1))
        .isEqualTo(content);
    assertThat(r.lineNumber()).isEqualTo(line);
    assertThat(r.endOffset()).isEqualTo(endOffset);
  }

  private static RecordReader reader(String input, boolean csv, int maxRecordBytes) {
    return new RecordReader(
        new LineReader(new ByteArrayInputStream(input.getBytes(StandardCharsets.ISO_8859_1)), "t"),
        csv,
        maxRecordBytes);
  }
}
