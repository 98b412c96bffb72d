package dev.idem.engine.io;

import java.io.Closeable;
import java.io.IOException;
import java.io.InputStream;
import java.util.Locale;

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
  private long lineNumber;
  private long bytesConsumed;

  /**
   * @param source how to name the input in errors (a path, or {@code "<stdin>"})
   */
  public LineReader(InputStream in, String source) {
    this.in = in;
    this.source = source;
  }

  /** Advances to the next line; false at the end of the input. */
  public boolean next() throws IOException {
    int scanned = 0; // bytes after start already known to hold no newline
    while (true) {
      int nl = indexOfNewline(start + scanned);
      if (nl >= 0) {
        emit(nl, nl + 1);
        return true;
      }
      scanned = end - start;
      if (eof) {
        if (start == end) {
          return false;
        }
        emit(end, end); // last line without a terminator
        return true;
      }
      fill();
    }
  }

  private void emit(int lineEnd, int next) {
    int len = lineEnd - start;
    if (len > 0 && buf[lineEnd - 1] == '\r' && lineEnd < next) {
      len--;
    }
    lineOffset = start;
    lineLength = len;
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
    if (start > 0) {
      System.arraycopy(buf, start, buf, 0, end - start);
      end -= start;
      start = 0;
    }
    if (end == buf.length) {
      if (buf.length >= MAX_LINE_BYTES) {
        throw new IOException(String.format(Locale.ROOT,
            "%s:%d: line longer than %d MiB; is this a binary file?", source, lineNumber + 1,
            MAX_LINE_BYTES >> 20));
      }
      buf = java.util.Arrays.copyOf(buf, Math.min(MAX_LINE_BYTES, buf.length * 2));
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
