package dev.idem.engine.input;

import com.github.luben.zstd.ZstdIOException;
import java.io.BufferedInputStream;
import java.io.EOFException;
import java.io.FileNotFoundException;
import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.AccessDeniedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.zip.ZipException;

/**
 * Opens the inputs users name on the command line: files, {@code -} for stdin, gzip, zstd, xz and
 * bzip2 by content.
 */
public final class Inputs {

  /** The name that stands for standard input. */
  public static final String STDIN = "-";

  private Inputs() {}

  /** How an input is named in messages. */
  public static String displayName(String name) {
    return STDIN.equals(name) ? "<stdin>" : name;
  }

  /**
   * Opens {@code name}: {@code stdin} for {@code "-"} (left open on close), else the file,
   * decompressed when it is compressed ({@link #decompressed}).
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
   * A decompressing stream over {@code raw} when it starts with the magic number of gzip, zstd, xz
   * or bzip2, or else when {@code name} has one of their suffixes; otherwise {@code raw}'s bytes as
   * they are ({@link Compression#of(String, byte[], int)}).
   *
   * @throws IOException naming the input when it is not compressed as its name says
   */
  public static InputStream decompressed(String name, InputStream raw) throws IOException {
    if (!raw.markSupported()) {
      raw = new BufferedInputStream(raw, 1 << 16);
    }
    raw.mark(Compression.MAGIC_BYTES);
    byte[] head = raw.readNBytes(Compression.MAGIC_BYTES);
    raw.reset();
    Compression c = Compression.of(name, head, head.length);
    if (!c.isCompressed()) {
      return raw;
    }
    try {
      return new NamedErrors(name, c, c.decompressing(raw));
    } catch (EOFException e) {
      raw.close();
      throw new IOException(name + ": truncated " + c + " file (it ends inside its header)");
    } catch (IOException e) {
      raw.close();
      throw new IOException(name + ": not a " + c + " file (" + e.getMessage() + ")");
    }
  }

  /**
   * Names the input in its read errors: a decompressor's own ("Unexpected end of ZLIB input
   * stream") says neither which file nor what is wrong with it.
   */
  private static final class NamedErrors extends FilterInputStream {
    private final String name;
    private final Compression compression;

    NamedErrors(String name, Compression compression, InputStream in) {
      super(in);
      this.name = name;
      this.compression = compression;
    }

    @Override
    public int read() throws IOException {
      try {
        return super.read();
      } catch (IOException e) {
        throw named(e);
      }
    }

    @Override
    public int read(byte[] b, int off, int len) throws IOException {
      try {
        return super.read(b, off, len);
      } catch (IOException e) {
        throw named(e);
      }
    }

    @Override
    public long skip(long n) throws IOException {
      try {
        return super.skip(n);
      } catch (IOException e) {
        throw named(e);
      }
    }

    private IOException named(IOException e) {
      String what =
          e instanceof EOFException
                  || "Truncated source".equals(e.getMessage())
                  || String.valueOf(e.getMessage()).contains("nexpected end of stream")
              ? "truncated " + compression + " file (" + e.getMessage() + ")"
              : e instanceof ZipException || e instanceof ZstdIOException
                  ? "damaged " + compression + " data (" + e.getMessage() + ")"
                  : e.getMessage();
      return new IOException(name + ": " + what, e);
    }
  }
}
