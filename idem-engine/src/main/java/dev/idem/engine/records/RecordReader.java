package dev.idem.engine.records;

import dev.idem.engine.input.LineReader;
import java.io.Closeable;
import java.io.IOException;
import java.util.Arrays;
import java.util.Locale;

/**
 * Splits an input into records: one per line, except in CSV, where a quoted field may continue over
 * line breaks and the record then spans several lines. A record is its bytes as read, terminator
 * included, so that output can reproduce it exactly.
 */
final class RecordReader implements Closeable {

  private final LineReader lines;
  private final boolean csv;
  private final int maxRecordBytes;
  private byte[] joined = new byte[1024];
  private byte[] bytes;
  private int offset;
  private int length;
  private int terminatorLength;
  private long lineNumber;
  private String problem;

  /**
   * @param csv whether quoted fields may span lines
   * @param maxRecordBytes longer records (final terminator excluded) are reported as bad, with no
   *     content; at most {@link LineReader#MAX_LINE_BYTES}
   */
  public RecordReader(LineReader lines, boolean csv, int maxRecordBytes) {
    this.lines = lines;
    this.csv = csv;
    this.maxRecordBytes = maxRecordBytes;
    lines.setMaxLineBytes(maxRecordBytes);
  }

  /** Advances to the next record; false at the end of the input. */
  public boolean next() throws IOException {
    problem = null;
    if (!lines.next()) {
      return false;
    }
    lineNumber = lines.lineNumber();
    if (lines.overlong()) {
      if (!csv || lines.overlongQuotesBalanced()) {
        return overlong(lines.overlongBytes() - lines.terminatorLength());
      }
    } else {
      bytes = lines.bytes();
      offset = lines.offset();
      length = lines.length();
      terminatorLength = lines.terminatorLength();
      if (!csv || quotesBalanced(bytes, offset, length)) {
        return true;
      }
    }
    return gatherQuotedLines();
  }

  /**
   * Reads the lines of a CSV record whose current line opens a quoted field, through the line that
   * closes it. A record over the limit is still read to its end, so that it is one bad record, but
   * only its size is kept.
   */
  private boolean gatherQuotedLines() throws IOException {
    int size = 0; // bytes in joined
    long total = 0; // bytes of the record so far, terminators included
    boolean fits = true;
    boolean open = true;
    while (true) {
      long content =
          lines.overlong() ? lines.overlongBytes() - lines.terminatorLength() : lines.length();
      terminatorLength = lines.terminatorLength();
      total += content + terminatorLength;
      // the limit is on the record without its final terminator, as for a one-line record
      fits = fits && !lines.overlong() && total - terminatorLength <= maxRecordBytes;
      if (fits) {
        int piece = (int) content + terminatorLength;
        if (size + piece > joined.length) {
          // at most maxRecordBytes + 2 bytes
          joined =
              Arrays.copyOf(
                  joined,
                  Math.max(size + piece, (int) Math.min(2L * joined.length, maxRecordBytes + 2L)));
        }
        System.arraycopy(lines.bytes(), lines.offset(), joined, size, piece);
        size += piece;
      }
      if (!open || !lines.next()) {
        break;
      }
      // an odd number of quotes on a line opens or closes a quoted field
      boolean balanced =
          lines.overlong()
              ? lines.overlongQuotesBalanced()
              : quotesBalanced(lines.bytes(), lines.offset(), lines.length());
      if (!balanced) {
        open = !open;
      }
    }
    if (!fits) {
      return overlong(total - terminatorLength);
    }
    bytes = joined;
    offset = 0;
    length = size - terminatorLength;
    if (open) {
      problem = "malformed CSV: a quoted field is not closed before the end of the input";
    }
    return true;
  }

  private boolean overlong(long recordBytes) {
    bytes = joined;
    offset = 0;
    length = 0;
    terminatorLength = 0;
    problem =
        String.format(
            Locale.ROOT,
            "record of %,d bytes is longer than --max-record-bytes %s",
            recordBytes,
            asSize(maxRecordBytes));
    return true;
  }

  /** A size as the option takes it: {@code 16m}, {@code 1k}, {@code 1000}. */
  static String asSize(int bytes) {
    return bytes % (1 << 30) == 0
        ? (bytes >> 30) + "g"
        : bytes % (1 << 20) == 0
            ? (bytes >> 20) + "m"
            : bytes % (1 << 10) == 0 ? (bytes >> 10) + "k" : Integer.toString(bytes);
  }

  private static boolean quotesBalanced(byte[] b, int offset, int length) {
    boolean inside = false;
    for (int i = offset, end = offset + length; i < end; i++) {
      if (b[i] == '"') {
        inside = !inside;
      }
    }
    return !inside;
  }

  /** The buffer holding the current record. */
  public byte[] bytes() {
    return bytes;
  }

  public int offset() {
    return offset;
  }

  /** Length of the record without its final line terminator. */
  public int length() {
    return length;
  }

  /** Bytes of the final terminator (0, 1 or 2), stored right after the record's content. */
  public int terminatorLength() {
    return terminatorLength;
  }

  /** Line on which the record starts (1-based). */
  public long lineNumber() {
    return lineNumber;
  }

  /** Lines of the input consumed through the end of this record. */
  public long lineNumberAfter() {
    return lines.lineNumber();
  }

  /** Bytes of the input consumed through the end of this record. */
  public long endOffset() {
    return lines.bytesConsumed();
  }

  /**
   * Why the record cannot be used even before its key is looked at (too long, unclosed quote), or
   * {@code null}.
   */
  public String problem() {
    return problem;
  }

  public String source() {
    return lines.source();
  }

  @Override
  public void close() throws IOException {
    lines.close();
  }
}
