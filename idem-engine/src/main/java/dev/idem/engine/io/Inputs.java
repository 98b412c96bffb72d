package dev.idem.engine.io;

import java.io.BufferedInputStream;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.AccessDeniedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.zip.GZIPInputStream;

/** Opens the inputs users name on the command line: files, {@code -} for stdin, gzip by name. */
public final class Inputs {

  /** The name that stands for standard input. */
  public static final String STDIN = "-";

  private Inputs() {}

  /** How an input is named in messages. */
  public static String displayName(String name) {
    return STDIN.equals(name) ? "<stdin>" : name;
  }

  /**
   * Opens {@code name}: {@code stdin} for {@code "-"} (left open on close), a gunzipping stream for
   * names ending in {@code .gz}, the plain file otherwise.
   *
   * @throws IOException with a message naming the input and what is wrong with it
   */
  public static InputStream open(String name, InputStream stdin) throws IOException {
    if (STDIN.equals(name)) {
      return new BufferedInputStream(stdin, 1 << 16) {
        @Override
        public void close() {
          // standard input belongs to the process, not to us
        }
      };
    }
    Path path = Path.of(name);
    InputStream raw;
    try {
      if (Files.isDirectory(path)) {
        throw new IOException(name + ": is a directory, not a file");
      }
      raw = Files.newInputStream(path);
    } catch (NoSuchFileException | FileNotFoundException e) {
      throw new IOException(name + ": no such file");
    } catch (AccessDeniedException e) {
      throw new IOException(name + ": permission denied");
    }
    return decompressed(name, raw);
  }

  /**
   * {@code raw} itself, or a gunzipping stream over it when {@code name} ends in {@code .gz}.
   *
   * @throws IOException naming the input when it is not gzip after all
   */
  public static InputStream decompressed(String name, InputStream raw) throws IOException {
    if (!name.endsWith(".gz")) {
      return raw;
    }
    try {
      return new GZIPInputStream(raw, 1 << 16);
    } catch (IOException e) {
      raw.close();
      throw new IOException(name + ": not a gzip file (" + e.getMessage() + ")");
    }
  }
}
