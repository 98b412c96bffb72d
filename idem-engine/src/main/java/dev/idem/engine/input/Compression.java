package dev.idem.engine.input;

import com.github.luben.zstd.ZstdInputStreamNoFinalizer;
import com.github.luben.zstd.ZstdOutputStreamNoFinalizer;
import java.io.BufferedInputStream;
import java.io.FilterOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.zip.GZIPInputStream;
import java.util.zip.GZIPOutputStream;
import org.apache.commons.compress.compressors.bzip2.BZip2CompressorInputStream;
import org.tukaani.xz.XZInputStream;

/**
 * How an input or output file is compressed. An input is told by its first bytes (gzip, zstd, xz
 * and bzip2 each start with their own magic number), so {@code data.GZ} or a gzip file without a
 * suffix is read decompressed; a file without one of them is taken by its name, so a {@code .gz}
 * that is not gzip is refused, never read as binary lines. An output is told by its name: {@code
 * .gz} is gzip, {@code .zst} zstd; idem writes no xz or bzip2.
 *
 * <p>A compressed output is a sequence of independent frames (gzip members, zstd frames), one per
 * checkpoint interval: the standard tools decompress the concatenation as one stream, and a resumed
 * job can cut the file back to the end of the last frame a checkpoint counted and append the next.
 */
public enum Compression {
  NONE("", 1),
  GZIP(".gz", 5),
  ZSTD(".zst", 5),
  XZ(".xz", 5),
  BZIP2(".bz2", 5);

  private static final byte[] GZIP_MAGIC = {0x1f, (byte) 0x8b};
  private static final byte[] ZSTD_MAGIC = {0x28, (byte) 0xb5, 0x2f, (byte) 0xfd};
  private static final byte[] XZ_MAGIC = {(byte) 0xfd, '7', 'z', 'X', 'Z', 0};
  private static final byte[] BZIP2_MAGIC = {'B', 'Z', 'h'};

  /** Bytes {@link #detect} looks at. */
  static final int MAGIC_BYTES = 6;

  /** zstd's own default level: about gzip -6's ratio at several times its speed. */
  private static final int ZSTD_LEVEL = 3;

  private static final int BUFFER = 1 << 16;

  private final String suffix;
  private final int typicalRatio;

  Compression(String suffix, int typicalRatio) {
    this.suffix = suffix;
    this.typicalRatio = typicalRatio;
  }

  /** The compression a file of this name has, by its suffix in any case. */
  public static Compression of(String name) {
    String lower = name.toLowerCase(Locale.ROOT);
    for (Compression c : values()) {
      if (c != NONE && lower.endsWith(c.suffix)) {
        return c;
      }
    }
    return NONE;
  }

  /**
   * An input's compression from its first bytes ({@code head}, {@code length} of them, at least
   * {@link #MAGIC_BYTES} unless the input is shorter): the magic number's, else its name's.
   */
  static Compression of(String name, byte[] head, int length) {
    Compression c = detect(head, length);
    return c != null ? c : of(name);
  }

  /** The compression whose magic number {@code head} starts with, or {@code null} for none. */
  private static Compression detect(byte[] head, int length) {
    return startsWith(head, length, GZIP_MAGIC)
        ? GZIP
        : startsWith(head, length, ZSTD_MAGIC)
            ? ZSTD
            : startsWith(head, length, XZ_MAGIC) ? XZ : isBzip2(head, length) ? BZIP2 : null;
  }

  /** An input's compression: by its first bytes, else by its name. */
  public static Compression ofInput(Path file) throws IOException {
    byte[] head = new byte[MAGIC_BYTES];
    int n;
    try (InputStream in = Files.newInputStream(file)) {
      n = in.readNBytes(head, 0, head.length);
    }
    return of(file.toString(), head, n);
  }

  /** "BZh", the block size 1-9, then a block's or the end's magic (0x31 or 0x17): not text. */
  private static boolean isBzip2(byte[] head, int length) {
    return length >= 5
        && startsWith(head, length, BZIP2_MAGIC)
        && head[3] >= '1'
        && head[3] <= '9'
        && (head[4] == 0x31 || head[4] == 0x17);
  }

  private static boolean startsWith(byte[] head, int length, byte[] magic) {
    if (length < magic.length) {
      return false;
    }
    for (int i = 0; i < magic.length; i++) {
      if (head[i] != magic[i]) {
        return false;
      }
    }
    return true;
  }

  /** {@code name} without its compression suffix: what tells its record format. */
  public static String withoutSuffix(String name) {
    Compression c = of(name);
    return name.substring(0, name.length() - c.suffix.length());
  }

  /** The file name suffix: {@code .gz}, {@code .zst}, or empty. */
  public String suffix() {
    return suffix;
  }

  public boolean isCompressed() {
    return this != NONE;
  }

  /**
   * About how many bytes of text one stored byte holds (5 for JSON Lines under gzip or zstd): for
   * estimates made before reading, never for correctness.
   */
  public long estimatedBytes(long storedBytes) {
    return storedBytes * typicalRatio;
  }

  /** The name users know it by, for messages: {@code gzip}, {@code zstd}. */
  @Override
  public String toString() {
    return name().toLowerCase(Locale.ROOT);
  }

  /**
   * A decompressing stream over {@code raw} (every frame or member, one after another); {@code raw}
   * itself for {@link #NONE}.
   */
  InputStream decompressing(InputStream raw) throws IOException {
    return switch (this) {
      case NONE -> raw;
      case GZIP -> new GZIPInputStream(raw, BUFFER);
      case ZSTD -> new BufferedInputStream(new ZstdInputStreamNoFinalizer(raw), BUFFER);
      case XZ -> new BufferedInputStream(new XZInputStream(raw), BUFFER);
      case BZIP2 -> new BufferedInputStream(new BZip2CompressorInputStream(raw, true), BUFFER);
    };
  }

  /**
   * Starts a frame written to {@code sink}: closing the returned stream ends the frame (a gzip
   * member, a zstd frame with its checksum) and leaves {@code sink} open.
   */
  public OutputStream frame(OutputStream sink) throws IOException {
    OutputStream kept =
        new FilterOutputStream(sink) {
          @Override
          public void write(byte[] b, int off, int len) throws IOException {
            out.write(b, off, len);
          }

          @Override
          public void close() throws IOException {
            flush(); // the sink outlives its frames
          }
        };
    return switch (this) {
      case NONE -> kept;
      case GZIP -> new GZIPOutputStream(kept, BUFFER);
      case ZSTD -> new ZstdOutputStreamNoFinalizer(kept, ZSTD_LEVEL).setChecksum(true);
      case XZ, BZIP2 -> throw new IOException("idem writes .gz and .zst outputs, not " + suffix);
    };
  }
}
