package dev.idem.engine.io;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;
import org.junit.jupiter.api.Test;

class LineReaderTest {

  /** Inputs made mostly of line terminators and a few letters, so every edge case is common. */
  @Provide
  Arbitrary<byte[]> inputs() {
    return Arbitraries.of((byte) '\n', (byte) '\r', (byte) 'a', (byte) 0xff, (byte) 0)
        .array(byte[].class).ofMaxSize(300);
  }

  @Property
  void readsWhatASimpleSplitReads(@ForAll("inputs") byte[] input,
      @ForAll @IntRange(min = 1, max = 7) int chunk) throws IOException {
    assertThat(readAll(new Trickle(input, chunk))).containsExactlyElementsOf(reference(input));
  }

  @Property
  void theChecksumCoversExactlyTheBytesConsumed(@ForAll("inputs") byte[] input,
      @ForAll @IntRange(min = 1, max = 7) int chunk,
      @ForAll @IntRange(min = 1, max = 6) int maxLineBytes) throws IOException {
    assertChecksumFollows(input, new Trickle(input, chunk), maxLineBytes);
  }

  @Test
  void theChecksumFollowsAcrossRefillsAndSkippedOverlongLines() throws IOException {
    java.util.Random r = new java.util.Random(15);
    ByteArrayOutputStream in = new ByteArrayOutputStream();
    for (int i = 0; i < 1000; i++) {
      int length = r.nextInt(10) == 0 ? 70_000 + r.nextInt(100_000) : r.nextInt(200);
      for (int j = 0; j < length; j++) {
        in.write('a' + r.nextInt(26));
      }
      in.write(r.nextInt(5) == 0 ? '\r' : 'z');
      in.write('\n');
    }
    byte[] input = in.toByteArray();
    assertChecksumFollows(input, new Trickle(input, 10_000), 100_000);
  }

  /** After each line, the reader's checksum is that of the input up to the line's end. */
  private static void assertChecksumFollows(byte[] input, InputStream in, int maxLineBytes)
      throws IOException {
    try (LineReader lines = new LineReader(in, "test")) {
      lines.setMaxLineBytes(maxLineBytes);
      lines.trackChecksum();
      assertThat(lines.checksum()).isZero();
      java.util.zip.CRC32C expected = new java.util.zip.CRC32C();
      int consumed = 0;
      while (lines.next()) {
        expected.update(input, consumed, (int) lines.bytesConsumed() - consumed);
        consumed = (int) lines.bytesConsumed();
        assertThat(lines.checksum()).as("after line %d", lines.lineNumber())
            .isEqualTo(expected.getValue());
      }
      assertThat(lines.bytesConsumed()).isEqualTo(input.length);
    }
  }

  @Test
  void linesLongerThanTheBufferArriveWhole() throws IOException {
    byte[] longLine = new byte[300_000];
    Arrays.fill(longLine, (byte) 'x');
    ByteArrayOutputStream in = new ByteArrayOutputStream();
    in.write(longLine);
    in.write('\n');
    in.write('y');
    List<String> lines = readAll(new Trickle(in.toByteArray(), 10_000));
    assertThat(lines).hasSize(2);
    assertThat(lines.get(0)).hasSize(300_000);
    assertThat(lines.get(1)).isEqualTo("y");
  }

  @Property
  void overlongLinesAreSkippedWholeAndCounted(@ForAll @IntRange(min = 1, max = 40) int max,
      @ForAll("inputs") byte[] input, @ForAll @IntRange(min = 1, max = 7) int chunk)
      throws IOException {
    List<String> expected = reference(input);
    LineReader r = new LineReader(new Trickle(input, chunk), "t");
    r.setMaxLineBytes(max);
    int i = 0;
    long consumed = 0;
    while (r.next()) {
      String line = expected.get(i++);
      if (line.length() > max) {
        assertThat(r.overlong()).isTrue();
        assertThat(r.length()).isZero();
      } else {
        assertThat(r.overlong()).isFalse();
        assertThat(new String(r.bytes(), r.offset(), r.length(),
            java.nio.charset.StandardCharsets.ISO_8859_1)).isEqualTo(line);
      }
      assertThat(r.lineNumber()).isEqualTo(i);
      consumed = r.bytesConsumed();
    }
    assertThat(i).isEqualTo(expected.size());
    assertThat(consumed).isEqualTo(input.length);
  }

  @Test
  void countsLinesAndBytes() throws IOException {
    LineReader r = new LineReader(new ByteArrayInputStream("a\r\nbb\n\nccc".getBytes()), "t");
    assertThat(r.next()).isTrue();
    assertThat(r.lineNumber()).isEqualTo(1);
    assertThat(r.bytesConsumed()).isEqualTo(3);
    assertThat(r.next()).isTrue();
    assertThat(r.next()).isTrue();
    assertThat(r.length()).isZero();
    assertThat(r.next()).isTrue();
    assertThat(r.lineNumber()).isEqualTo(4);
    assertThat(r.bytesConsumed()).isEqualTo(10);
    assertThat(r.next()).isFalse();
  }

  @Test
  void readFailuresNameTheSourceAndLine() {
    InputStream failing = new InputStream() {
      int calls;

      @Override
      public int read() {
        throw new UnsupportedOperationException();
      }

      @Override
      public int read(byte[] b, int off, int len) throws IOException {
        if (calls++ == 0) {
          b[off] = 'k';
          b[off + 1] = '\n';
          return 2;
        }
        throw new IOException("Unexpected end of ZLIB input stream");
      }
    };
    LineReader r = new LineReader(failing, "shard-7.gz");
    assertThatThrownBy(() -> {
      while (r.next()) {
        // drain
      }
    }).hasMessage("shard-7.gz: read failed after line 1: Unexpected end of ZLIB input stream");
  }

  private static List<String> readAll(InputStream in) throws IOException {
    List<String> lines = new ArrayList<>();
    try (LineReader r = new LineReader(in, "test")) {
      while (r.next()) {
        lines.add(new String(r.bytes(), r.offset(), r.length(), java.nio.charset.StandardCharsets.ISO_8859_1));
      }
    }
    return lines;
  }

  /** Split on \n; the text after a final \n is not a line; one \r before each \n is dropped. */
  private static List<String> reference(byte[] input) {
    String s = new String(input, java.nio.charset.StandardCharsets.ISO_8859_1);
    List<String> lines = new ArrayList<>();
    int start = 0;
    for (int i = 0; i < s.length(); i++) {
      if (s.charAt(i) == '\n') {
        String line = s.substring(start, i);
        lines.add(line.endsWith("\r") ? line.substring(0, line.length() - 1) : line);
        start = i + 1;
      }
    }
    if (start < s.length()) {
      lines.add(s.substring(start));
    }
    return lines;
  }

  /** Hands out at most {@code chunk} bytes per read, like a slow pipe. */
  private static final class Trickle extends InputStream {
    private final byte[] data;
    private final int chunk;
    private int pos;

    Trickle(byte[] data, int chunk) {
      this.data = data;
      this.chunk = chunk;
    }

    @Override
    public int read() {
      return pos < data.length ? data[pos++] & 0xFF : -1;
    }

    @Override
    public int read(byte[] b, int off, int len) {
      if (pos == data.length) {
        return -1;
      }
      int n = Math.min(Math.min(len, chunk), data.length - pos);
      System.arraycopy(data, pos, b, off, n);
      pos += n;
      return n;
    }
  }
}
