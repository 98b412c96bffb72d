package dev.idem.cli;

import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintStream;

/**
 * The streams a command reads and writes; the real ones in production, buffers in tests.
 *
 * @param out text for the user on standard output (help, reports)
 * @param data records written to standard output: a stream that throws when a write fails, where a
 *     {@link PrintStream} would swallow a full disk or a closed pipe
 */
record Io(InputStream in, PrintStream out, PrintStream err, OutputStream data) {

  /** Records go to {@code out} itself: for tests, whose buffers do not fail. */
  Io(InputStream in, PrintStream out, PrintStream err) {
    this(in, out, err, out);
  }

  static Io system() {
    return new Io(System.in, System.out, System.err, new FileOutputStream(FileDescriptor.out));
  }
}
