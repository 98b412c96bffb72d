package dev.idem.bench;

import dev.idem.core.Fingerprinter;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.zip.CRC32C;

/**
 * A digest of a file of lines that tells both "the same bytes in the same order" (CRC32C of all
 * bytes) and "the same set of lines in any order" (line count plus the sum of every line's 128-bit
 * fingerprint), so an output can be checked against the expected one without sorting gigabytes:
 * input-order outputs by the first, key-order outputs and {@code sort -u} by the second.
 */
final class LineDigest {

  private static final Fingerprinter FP = Fingerprinter.xxh3();

  private final CRC32C crc = new CRC32C();
  private final long[] fp = new long[2];
  private long bytes;
  private long lines;
  private long sumHi;
  private long sumLo;

  /** Adds one line, its terminator included. */
  void line(byte[] b, int off, int len) {
    crc.update(b, off, len);
    bytes += len;
    lines++;
    FP.fingerprintInto(b, off, len, fp, 0);
    sumHi += fp[0];
    sumLo += fp[1];
  }

  /** The digest of a whole file (every line ends with a newline, as the contenders write). */
  static LineDigest of(Path file) throws IOException {
    LineDigest d = new LineDigest();
    byte[] buf = new byte[1 << 20];
    int filled = 0;
    try (InputStream in = Files.newInputStream(file)) {
      while (true) {
        int n = in.read(buf, filled, buf.length - filled);
        if (n < 0) {
          break;
        }
        filled += n;
        int start = 0;
        for (int i = 0; i < filled; i++) {
          if (buf[i] == '\n') {
            d.line(buf, start, i + 1 - start);
            start = i + 1;
          }
        }
        System.arraycopy(buf, start, buf, 0, filled - start);
        filled -= start;
        if (filled == buf.length) {
          throw new IOException(file + ": a line longer than " + buf.length + " bytes");
        }
      }
    }
    if (filled > 0) {
      d.line(buf, 0, filled);
    }
    return d;
  }

  long lines() {
    return lines;
  }

  long bytes() {
    return bytes;
  }

  /** Same bytes in the same order. */
  boolean sameSequence(LineDigest o) {
    return sameSet(o) && bytes == o.bytes && crc.getValue() == o.crc.getValue();
  }

  /** Same multiset of lines, in any order. */
  boolean sameSet(LineDigest o) {
    return lines == o.lines && sumHi == o.sumHi && sumLo == o.sumLo;
  }
}
