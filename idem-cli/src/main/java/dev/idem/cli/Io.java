package dev.idem.cli;

import java.io.InputStream;
import java.io.PrintStream;

/** The streams a command reads and writes; the real ones in production, buffers in tests. */
record Io(InputStream in, PrintStream out, PrintStream err) {

  static Io system() {
    return new Io(System.in, System.out, System.err);
  }
}
