package dev.idem.cli;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

/** Runs {@code idem} in this JVM against byte buffers. */
final class Cli {

  /** What a run printed and returned. */
  record Result(int status, String out, String err, byte[] outBytes) {}

  private Cli() {}

  /** Streams for a command that is parsed, not run: no input, output thrown away. */
  static Io nullIo() {
    PrintStream none =
        new PrintStream(OutputStream.nullOutputStream(), true, StandardCharsets.UTF_8);
    return new Io(InputStream.nullInputStream(), none, none);
  }

  static Result run(String... args) {
    return runWithInput(new byte[0], args);
  }

  static Result runWithInput(String stdin, String... args) {
    return runWithInput(stdin.getBytes(StandardCharsets.UTF_8), args);
  }

  static Result runWithInput(byte[] stdin, String... args) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    Io io =
        new Io(
            new ByteArrayInputStream(stdin),
            new PrintStream(out, true, StandardCharsets.UTF_8),
            new PrintStream(err, true, StandardCharsets.UTF_8));
    int status = IdemCommand.execute(io, args);
    return new Result(
        status,
        out.toString(StandardCharsets.UTF_8),
        err.toString(StandardCharsets.UTF_8),
        out.toByteArray());
  }
}
