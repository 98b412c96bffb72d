package dev.idem.cli;

import java.io.FilterOutputStream;
import java.io.IOException;
import java.io.OutputStream;

/**
 * An output stream whose write errors name it: a full disk under standard output says {@code
 * <stdout>: write failed: No space left on device}, not only the reason.
 */
final class NamedOutput extends FilterOutputStream {

  private final String name;

  NamedOutput(String name, OutputStream out) {
    super(out);
    this.name = name;
  }

  @Override
  public void write(byte[] b, int off, int len) throws IOException {
    try {
      out.write(b, off, len);
    } catch (IOException e) {
      throw failed(e);
    }
  }

  @Override
  public void write(int b) throws IOException {
    try {
      out.write(b);
    } catch (IOException e) {
      throw failed(e);
    }
  }

  @Override
  public void flush() throws IOException {
    try {
      out.flush();
    } catch (IOException e) {
      throw failed(e);
    }
  }

  private IOException failed(IOException e) {
    return new IOException(name + ": write failed: " + e.getMessage(), e);
  }
}
