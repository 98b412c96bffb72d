package dev.idem.engine.record;

import dev.idem.engine.io.LineReader;
import java.io.Closeable;
import java.io.IOException;
import java.util.Arrays;

/**
 * Splits an input into records: one per line, except in CSV, where a quoted field may continue
 * over line breaks and the record then spans several lines. A record is its bytes as read,
 * terminator included, so that output can reproduce it exactly.
 */
public final class RecordReader implements Closeable {

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
   * @param maxRecordBytes longer records are reported as bad, with no content
   */
  public RecordReader(LineReader lines, boolean csv, int maxRecordBytes) {
    this.lines = lines;
    this.csv = csv;
    this.maxRecordBytes = maxRecordBytes;
    lines.setMaxLineBytes(Math.min(maxRecordBytes, LineReader.MAX_LINE_BYTES));
  }

  /** Advances to the next record; false at the end of the input. */
  public boolean next() throws IOException {
    problem = null;
    if (!lines.next()) {
      return false;
    }
    lineNumber = lines.lineNumber();
    if (lines.overlong()) {
      return overlong(lines.overlongBytes());
    }
    bytes = lines.bytes();
    offset = lines.offset();
    length = lines.length();
    terminatorLength = lines.terminatorLength();
    if (!csv || quotesBalanced(bytes, offset, length)) {
      return true;
    }
    // a quoted field continues on the next line: gather lines, terminators included
    int size = 0;
    long total = 0;
    boolean open = true;
    while (true) {
      int piece = lines.length() + lines.terminatorLength();
      total += lines.overlong() ? lines.overlongBytes() : piece;
      if (total <= maxRecordBytes) {
        if (size + piece > joined.length) {
          joined = Arrays.copyOf(joined, (int) Math.min(Integer.MAX_VALUE - 8,
              Math.max(size + piece, 2L * joined.length)));
        }
        System.arraycopy(lines.bytes(), lines.offset(), joined, size, piece);
        size += piece;
        terminatorLength = lines.terminatorLength();
      }
      if (!open || !lines.next()) {
        break;
      }
      // an odd number of quotes on a line opens or closes a quoted field; an overlong line's
      // quotes are unknown, so it is taken as leaving the state as it was
      if (!lines.overlong() && !quotesBalanced(lines.bytes(), lines.offset(), lines.length())) {
        open = !open;
      }
    }
    if (total > maxRecordBytes) {
      return overlong(total);
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
    problem = "record of " + recordBytes + " bytes is longer than --max-record-bytes "
        + maxRecordBytes;
    return true;
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
   * Why the record cannot be used even before its key is looked at (too long, unclosed quote),
   * or {@code null}.
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
