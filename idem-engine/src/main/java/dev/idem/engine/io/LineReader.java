package dev.idem.engine.io;

import java.io.Closeable;
import java.io.IOException;
import java.io.InputStream;
import java.util.Locale;
import java.util.zip.CRC32C;

/**
 * Reads lines as raw bytes, without decoding and without an object per line: after {@link
 * #next()} the line is {@code bytes()[offset(), offset() + length())}, valid until the next call.
 *
 * <p>A line ends at {@code \n}; one {@code \r} before it is dropped too, so CRLF files read like
 * LF files. The last line needs no terminator. An empty input has no lines; an input of just
 * {@code "\n"} has one empty line.
 */
public final class LineReader implements Closeable {

  /** Lines longer than this are refused rather than allowed to exhaust the heap. */
  public static final int MAX_LINE_BYTES = 64 << 20;

  private final InputStream in;
  private final String source;
  private byte[] buf = new byte[1 << 16];
  private int start; // first unread byte
  private int end; // end of valid bytes
  private boolean eof;
  private int lineOffset;
  private int lineLength;
  private int terminatorLength;
  private int maxLineBytes = MAX_LINE_BYTES;
  private boolean overlong;
  private long overlongBytes;
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
   * A reader that continues an input: {@code in} is positioned {@code bytesConsumed} bytes into
   * it, just after line {@code lineNumber}, and numbering and byte counts carry on from there.
   */
  public LineReader(InputStream in, String source, long bytesConsumed, long lineNumber) {
    this.in = in;
    this.source = source;
    this.bytesConsumed = bytesConsumed;
    this.lineNumber = lineNumber;
  }

  /**
   * Lines longer than {@code max} bytes are not kept: {@link #next()} skips to their end and
   * reports them with {@link #overlong()} true and no content. Without this, a line over {@link
   * #MAX_LINE_BYTES} is an error.
   */
  public void setMaxLineBytes(int max) {
    if (max < 1 || max > MAX_LINE_BYTES) {
      throw new IllegalArgumentException(
          "max line bytes must be between 1 and " + MAX_LINE_BYTES + ", got " + max);
    }
    this.maxLineBytes = max;
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
   * The CRC32C of the bytes consumed since {@link #trackChecksum()} through the end of the
   * current line, terminators, overlong lines and all.
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
        int content = nl - start - (nl > start && buf[nl - 1] == '\r' ? 1 : 0);
        if (content > maxLineBytes && maxLineBytes < MAX_LINE_BYTES) {
          reportOverlong(nl + 1 - start);
          start = nl + 1;
          return true;
        }
        emit(nl, nl + 1);
        return true;
      }
      scanned = end - start;
      if (eof) {
        if (start == end) {
          return false;
        }
        if (scanned > maxLineBytes && maxLineBytes < MAX_LINE_BYTES) {
          reportOverlong(scanned);
          start = end;
          return true;
        }
        emit(end, end); // last line without a terminator
        return true;
      }
      // one byte of slack: a final \r may yet turn out to be part of the terminator
      if (scanned > maxLineBytes + 1 && maxLineBytes < MAX_LINE_BYTES) {
        skipOverlongLine();
        return true;
      }
      fill();
    }
  }

  /** Discards the rest of a line that is too long, and reports it as an empty overlong line. */
  private void skipOverlongLine() throws IOException {
    long skipped = end - start;
    start = end;
    while (true) {
      fill();
      int nl = indexOfNewline(start);
      if (nl >= 0) {
        skipped += nl + 1 - start;
        start = nl + 1;
        break;
      }
      skipped += end - start;
      start = end;
      if (eof) {
        break;
      }
    }
    reportOverlong(skipped);
  }

  private void reportOverlong(long bytes) {
    overlong = true;
    overlongBytes = bytes;
    lineOffset = start;
    lineLength = 0;
    terminatorLength = 0;
    bytesConsumed += bytes;
    lineNumber++;
  }

  /** True when the current line was longer than the limit and its content was dropped. */
  public boolean overlong() {
    return overlong;
  }

  /** Bytes of the current overlong line, terminator included. */
  public long overlongBytes() {
    return overlongBytes;
  }

  private void emit(int lineEnd, int next) {
    int len = lineEnd - start;
    if (len > 0 && buf[lineEnd - 1] == '\r' && lineEnd < next) {
      len--;
    }
    lineOffset = start;
    lineLength = len;
    terminatorLength = next - start - len;
    bytesConsumed += next - start;
    start = next;
    lineNumber++;
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
      if (buf.length >= maxLineBytes) {
        throw new IOException(String.format(Locale.ROOT,
            "%s:%d: line longer than %d MiB; is this a binary file?", source, lineNumber + 1,
            MAX_LINE_BYTES >> 20));
      }
      buf = java.util.Arrays.copyOf(buf, Math.min(maxLineBytes + 2, buf.length * 2));
    }
    int n;
    try {
      n = in.read(buf, end, buf.length - end);
    } catch (IOException e) {
      throw new IOException(source + ": read failed after line " + lineNumber + ": "
          + e.getMessage(), e);
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
   * Bytes of the current line's terminator: 2 for {@code \r\n}, 1 for {@code \n}, 0 for a last
   * line without one. The line as read is {@code bytes()[offset(), offset() + length() +
   * terminatorLength())}.
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
