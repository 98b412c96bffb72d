package dev.idem.engine.input;

import java.io.Closeable;
import java.io.IOException;
import java.io.InputStream;
import java.util.Arrays;
import java.util.Locale;
import java.util.zip.CRC32C;

/**
 * Reads lines as raw bytes, without decoding and without an object per line: after {@link #next()}
 * the line is {@code bytes()[offset(), offset() + length())}, valid until the next call.
 *
 * <p>A line ends at {@code \n}; one {@code \r} before it is dropped too, so CRLF files read like LF
 * files. The last line needs no terminator. An empty input has no lines; an input of just {@code
 * "\n"} has one empty line.
 */
public final class LineReader implements Closeable {

  /**
   * The largest limit: a line is held whole in the buffer, so this bounds the reader's memory. A
   * reader given no limit refuses longer lines rather than skipping them.
   */
  public static final int MAX_LINE_BYTES = 64 << 20;

  /**
   * {@code maxRecordBytes} as every job takes it: from 1 to {@link #MAX_LINE_BYTES}, since a record
   * is held whole in memory (longer ones are bad records).
   *
   * @throws IllegalArgumentException outside that range, naming the option
   */
  public static int checkMaxRecordBytes(int maxRecordBytes) {
    if (maxRecordBytes < 1 || maxRecordBytes > MAX_LINE_BYTES) {
      throw new IllegalArgumentException(
          "--max-record-bytes must be from 1 to 64m: records are held whole in memory; longer "
              + "ones are bad records (see --on-bad-record), got "
              + maxRecordBytes);
    }
    return maxRecordBytes;
  }

  private final InputStream in;
  private final String source;

  /** Enough for most lines; the buffer grows (up to the limit) for longer ones. */
  private static final int INITIAL_BUFFER_BYTES = 1 << 16;

  private byte[] buf;
  private int start; // first unread byte
  private int end; // end of valid bytes
  private boolean eof;
  private int lineOffset;
  private int lineLength;
  private int terminatorLength;
  private int maxLineBytes = MAX_LINE_BYTES;
  private boolean skipOverlong;
  private boolean overlong;
  private long overlongBytes;
  private boolean overlongQuotesBalanced;
  private long lineNumber;
  private long bytesConsumed;

  /** What was consumed, when asked for ({@link #trackChecksum}); {@code null} otherwise. */
  private CRC32C checksum;

  /** Bytes of {@code buf} before this index are in {@link #checksum}; never past {@code start}. */
  private int checksummed;

  /**
   * @param source how to name the input in errors (a path, or {@code "<stdin>"})
   */
  public LineReader(InputStream in, String source) {
    this(in, source, 0, 0);
  }

  /**
   * A reader that continues an input: {@code in} is positioned {@code bytesConsumed} bytes into it,
   * just after line {@code lineNumber}, and numbering and byte counts carry on from there.
   */
  public LineReader(InputStream in, String source, long bytesConsumed, long lineNumber) {
    this(in, source, bytesConsumed, lineNumber, INITIAL_BUFFER_BYTES);
  }

  /** With a given first buffer size, so tests reach the growth path with small lines. */
  LineReader(
      InputStream in, String source, long bytesConsumed, long lineNumber, int initialBufferBytes) {
    this.buf = new byte[initialBufferBytes];
    this.in = in;
    this.source = source;
    this.bytesConsumed = bytesConsumed;
    this.lineNumber = lineNumber;
  }

  /**
   * Lines longer than {@code max} bytes (terminator excluded) are not kept: {@link #next()} streams
   * through them and reports them with {@link #overlong()} true and no content, holding at most
   * {@code max + 2} bytes however long they are. Without this, a line over {@link #MAX_LINE_BYTES}
   * is an error.
   */
  public void setMaxLineBytes(int max) {
    if (max < 1 || max > MAX_LINE_BYTES) {
      throw new IllegalArgumentException(
          "max line bytes must be between 1 and " + MAX_LINE_BYTES + ", got " + max);
    }
    this.maxLineBytes = max;
    this.skipOverlong = true;
  }

  /**
   * Keeps a CRC32C of the bytes consumed from now on ({@link #checksum()}). Each byte is added
   * once, in the large ranges a buffer refill leaves behind rather than line by line: a few
   * milliseconds per GiB.
   */
  public void trackChecksum() {
    checksum = new CRC32C();
    checksummed = start;
  }

  /**
   * The CRC32C of the bytes consumed since {@link #trackChecksum()} through the end of the current
   * line, terminators, overlong lines and all.
   */
  public long checksum() {
    checksumUpTo(start);
    return checksum.getValue();
  }

  private void checksumUpTo(int upTo) {
    if (checksum != null && upTo > checksummed) {
      checksum.update(buf, checksummed, upTo - checksummed);
      checksummed = upTo;
    }
  }

  /** Advances to the next line; false at the end of the input. */
  public boolean next() throws IOException {
    overlong = false;
    int scanned = 0; // bytes after start already known to hold no newline
    while (true) {
      int nl = indexOfNewline(start + scanned);
      if (nl >= 0) {
        int contentEnd = nl > start && buf[nl - 1] == '\r' ? nl - 1 : nl;
        if (contentEnd - start > maxLineBytes) {
          dropLine(contentEnd, nl + 1);
        } else {
          emit(contentEnd, nl + 1);
        }
        return true;
      }
      scanned = end - start;
      if (eof) {
        if (scanned == 0) {
          return false;
        }
        // the last line without a terminator: a final \r is content
        if (scanned > maxLineBytes) {
          dropLine(end, end);
        } else {
          emit(end, end);
        }
        return true;
      }
      // max + 2 bytes without a newline hold more than max bytes of content even if the last is
      // a \r before a \n still to come; the buffer never grows beyond that (see fill)
      if (scanned >= maxLineBytes + 2) {
        skipOverlongLine();
        return true;
      }
      fill();
    }
  }

  /** Reports the overlong line {@code [start, contentEnd)} that is whole in the buffer. */
  private void dropLine(int contentEnd, int next) throws IOException {
    boolean quotesOdd = false;
    for (int i = start; i < contentEnd; i++) {
      quotesOdd ^= buf[i] == '"';
    }
    reportOverlong(contentEnd - start, next - contentEnd, quotesOdd);
    start = next;
  }

  /**
   * Streams through the rest of a line too long to hold, keeping only its length and the parity of
   * its quotes: memory stays bounded by the limit for a line of gigabytes, or a binary file without
   * a newline.
   */
  private void skipOverlongLine() throws IOException {
    long length = 0; // bytes of the line before its \n
    boolean quotesOdd = false;
    byte last = 0;
    while (true) {
      int i = start;
      for (; i < end && buf[i] != '\n'; i++) {
        quotesOdd ^= buf[i] == '"';
      }
      if (i > start) {
        last = buf[i - 1];
      }
      length += i - start;
      if (i < end) {
        int cr = last == '\r' ? 1 : 0;
        reportOverlong(length - cr, 1 + cr, quotesOdd);
        start = i + 1;
        return;
      }
      start = end;
      if (eof) {
        reportOverlong(length, 0, quotesOdd);
        return;
      }
      fill();
    }
  }

  private void reportOverlong(long contentBytes, int terminator, boolean quotesOdd)
      throws IOException {
    if (!skipOverlong) {
      throw new IOException(
          String.format(
              Locale.ROOT,
              "%s:%d: line longer than %d MiB; is this a binary file?",
              source,
              lineNumber + 1,
              maxLineBytes >> 20));
    }
    overlong = true;
    overlongBytes = contentBytes + terminator;
    overlongQuotesBalanced = !quotesOdd;
    lineOffset = start;
    lineLength = 0;
    terminatorLength = terminator;
    bytesConsumed += contentBytes + terminator;
    lineNumber++;
  }

  /** True when the current line was longer than the limit and its content was dropped. */
  public boolean overlong() {
    return overlong;
  }

  /**
   * Bytes of the current overlong line, terminator included: its content was {@code overlongBytes()
   * - terminatorLength()} bytes.
   */
  public long overlongBytes() {
    return overlongBytes;
  }

  /**
   * Whether the current overlong line holds an even number of {@code "} bytes, so that a CSV reader
   * can follow quoted fields across a line whose content it never saw.
   */
  public boolean overlongQuotesBalanced() {
    return overlongQuotesBalanced;
  }

  /** Makes {@code [start, contentEnd)} the current line, and moves on to {@code next}. */
  private void emit(int contentEnd, int next) {
    lineOffset = start;
    lineLength = contentEnd - start;
    if (bytesConsumed == 0 && startsWithByteOrderMark(start, contentEnd)) {
      // a mark of the file's encoding, not text of its first record: 'url' stays a header's
      // column and '{' a JSON record's start (consumed bytes still count it, for resume offsets)
      lineOffset += BYTE_ORDER_MARK.length;
      lineLength -= BYTE_ORDER_MARK.length;
    }
    terminatorLength = next - contentEnd;
    bytesConsumed += next - start;
    start = next;
    lineNumber++;
  }

  /** UTF-8's encoding of U+FEFF, which some editors and spreadsheets put first in a file. */
  private static final byte[] BYTE_ORDER_MARK = {(byte) 0xEF, (byte) 0xBB, (byte) 0xBF};

  private boolean startsWithByteOrderMark(int from, int to) {
    return to - from >= 3
        && buf[from] == BYTE_ORDER_MARK[0]
        && buf[from + 1] == BYTE_ORDER_MARK[1]
        && buf[from + 2] == BYTE_ORDER_MARK[2];
  }

  private int indexOfNewline(int from) {
    for (int i = from; i < end; i++) {
      if (buf[i] == '\n') {
        return i;
      }
    }
    return -1;
  }

  /** Reads more bytes, first moving the partial line to the front or growing the buffer. */
  private void fill() throws IOException {
    checksumUpTo(start); // consumed bytes are about to be moved over or dropped
    if (start > 0) {
      System.arraycopy(buf, start, buf, 0, end - start);
      end -= start;
      checksummed -= start;
      start = 0;
    }
    if (end == buf.length) {
      // next() holds fewer than maxLineBytes + 2 bytes of a line, so this is always a real growth;
      // at exactly maxLineBytes + 2 it decides the line is too long instead of reading on
      buf = Arrays.copyOf(buf, (int) Math.min(maxLineBytes + 2L, 2L * buf.length));
    }
    int n;
    try {
      n = in.read(buf, end, buf.length - end);
    } catch (IOException e) {
      String why = String.valueOf(e.getMessage());
      String named = source + ": "; // said once, even when the stream said it already
      throw new IOException(
          named
              + "read failed after line "
              + lineNumber
              + ": "
              + (why.startsWith(named) ? why.substring(named.length()) : why),
          e);
    }
    if (n < 0) {
      eof = true;
    } else {
      end += n;
    }
  }

  /** The buffer holding the current line. */
  public byte[] bytes() {
    return buf;
  }

  /** Where the current line starts in {@link #bytes()}. */
  public int offset() {
    return lineOffset;
  }

  /** Length of the current line, without its terminator. */
  public int length() {
    return lineLength;
  }

  /**
   * Bytes of the current line's terminator: 2 for {@code \r\n}, 1 for {@code \n}, 0 for a last line
   * without one. The line as read is {@code bytes()[offset(), offset() + length() +
   * terminatorLength())}, except for an overlong line, whose content is gone.
   */
  public int terminatorLength() {
    return terminatorLength;
  }

  /** 1-based number of the current line. */
  public long lineNumber() {
    return lineNumber;
  }

  /** Bytes consumed up to the end of the current line, terminator included. */
  public long bytesConsumed() {
    return bytesConsumed;
  }

  /** The name of the input, as given. */
  public String source() {
    return source;
  }

  @Override
  public void close() throws IOException {
    in.close();
  }
}
