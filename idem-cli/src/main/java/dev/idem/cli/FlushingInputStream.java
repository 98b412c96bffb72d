package dev.idem.cli;

import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;

/**
 * Flushes an output before a read that would block, so that a program driving idem through a pipe
 * (one key in, one answer out) gets its answer, while bulk input still gets buffered output.
 */
final class FlushingInputStream extends FilterInputStream {

  private final OutputStream out;

  FlushingInputStream(InputStream in, OutputStream out) {
    super(in);
    this.out = out;
  }

  @Override
  public int read() throws IOException {
    flushIfIdle();
    return super.read();
  }

  @Override
  public int read(byte[] b, int off, int len) throws IOException {
    flushIfIdle();
    return super.read(b, off, len);
  }

  private void flushIfIdle() throws IOException {
    if (in.available() == 0) {
      try {
        out.flush();
      } catch (IOException e) {
        // the output's failure, not the input's: past the reader, which would call it a read error
        throw new UncheckedIOException(e);
      }
    }
  }
}
