package dev.idem.engine.input;

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
import net.jqwik.api.Combinators;
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
        .array(byte[].class)
        .ofMaxSize(300);
  }

  @Property
  void readsWhatASimpleSplitReads(
      @ForAll("inputs") byte[] input, @ForAll @IntRange(min = 1, max = 7) int chunk)
      throws IOException {
    assertThat(readAll(new Trickle(input, chunk))).containsExactlyElementsOf(reference(input));
  }

  @Property
  void theChecksumCoversExactlyTheBytesConsumed(
      @ForAll("inputs") byte[] input,
      @ForAll @IntRange(min = 1, max = 7) int chunk,
      @ForAll @IntRange(min = 1, max = 6) int maxLineBytes)
      throws IOException {
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
        assertThat(lines.checksum())
            .as("after line %d", lines.lineNumber())
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
  void overlongLinesAreSkippedWholeAndCounted(
      @ForAll @IntRange(min = 1, max = 40) int max,
      @ForAll("inputs") byte[] input,
      @ForAll @IntRange(min = 1, max = 7) int chunk)
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
        assertThat(
                new String(
                    r.bytes(),
                    r.offset(),
                    r.length(),
                    java.nio.charset.StandardCharsets.ISO_8859_1))
            .isEqualTo(line);
      }
      assertThat(r.lineNumber()).isEqualTo(i);
      consumed = r.bytesConsumed();
    }
    assertThat(i).isEqualTo(expected.size());
    assertThat(consumed).isEqualTo(input.length);
  }

  /** A line of a generated input: its length relative to the limit, and its terminator. */
  enum Length {
    EMPTY,
    ONE,
    BELOW,
    AT,
    ABOVE,
    TWO_ABOVE,
    TWICE,
    MANY_TIMES,
    BUFFER_BELOW,
    BUFFER,
    BUFFER_ABOVE
  }

  record Line(Length length, boolean crlf) {}

  @Provide
  Arbitrary<Integer> limits() {
    // 2^k - 1, 2^k and 2^k + 1: a power of two once made the buffer stop growing at the limit
    return Combinators.combine(
            Arbitraries.integers().between(0, 20), Arbitraries.integers().between(-1, 1))
        .as((k, d) -> Math.max(1, (1 << k) + d));
  }

  @Property(tries = 300)
  void everyLineOverTheLimitIsOneOverlongLineAndPositionsStayExact(
      @ForAll("limits") int limit,
      @ForAll("lines") List<Line> lines,
      @ForAll boolean lastTerminated,
      @ForAll("bufferSizes") int initialBuffer,
      @ForAll("chunks") int chunk)
      throws IOException {
    long[] lengths = new long[lines.size()];
    int[] terminators = new int[lines.size()];
    for (int i = 0; i < lengths.length; i++) {
      lengths[i] = length(lines.get(i).length(), limit, initialBuffer);
      boolean last = i == lengths.length - 1;
      // an empty last line without a terminator is no line at all
      boolean unterminated = last && !lastTerminated && lengths[i] > 0;
      terminators[i] = unterminated ? 0 : lines.get(i).crlf() ? 2 : 1;
    }
    LineReader r =
        new LineReader(new Generated(lengths, terminators, chunk), "t", 1000, 10, initialBuffer);
    r.setMaxLineBytes(limit);
    long consumed = 1000;
    for (int i = 0; i < lengths.length; i++) {
      assertThat(r.next()).isTrue();
      consumed += lengths[i] + terminators[i];
      assertThat(r.lineNumber()).isEqualTo(11 + i);
      assertThat(r.bytesConsumed()).as("bytes consumed after line %d", i + 1).isEqualTo(consumed);
      if (lengths[i] > limit) {
        assertThat(r.overlong()).as("line %d of %d bytes", i + 1, lengths[i]).isTrue();
        assertThat(r.overlongBytes()).isEqualTo(lengths[i] + terminators[i]);
        assertThat(r.length()).isZero();
      } else {
        assertThat(r.overlong()).as("line %d of %d bytes", i + 1, lengths[i]).isFalse();
        assertThat(r.length()).isEqualTo(lengths[i]);
        for (int j = 0; j < r.length(); j++) {
          if (r.bytes()[r.offset() + j] != Generated.content(i, j, lengths[i])) {
            throw new AssertionError("line " + (i + 1) + " differs at byte " + j);
          }
        }
      }
      assertThat(r.terminatorLength()).isEqualTo(terminators[i]);
      // memory follows the limit, never the length of a line
      assertThat(r.bytes().length).isLessThanOrEqualTo(Math.max(initialBuffer, limit + 2));
    }
    assertThat(r.next()).isFalse();
    assertThat(r.bytesConsumed()).isEqualTo(consumed);
  }

  private static long length(Length length, int limit, int buffer) {
    return switch (length) {
      case EMPTY -> 0;
      case ONE -> 1;
      case BELOW -> limit - 1;
      case AT -> limit;
      case ABOVE -> limit + 1L;
      case TWO_ABOVE -> limit + 2L;
      case TWICE -> 2L * limit;
      case MANY_TIMES -> 7L * limit + 3;
      case BUFFER_BELOW -> buffer - 1;
      case BUFFER -> buffer;
      case BUFFER_ABOVE -> buffer + 1L;
    };
  }

  @Provide
  Arbitrary<List<Line>> lines() {
    return Combinators.combine(Arbitraries.of(Length.class), Arbitraries.of(false, true))
        .as(Line::new)
        .list()
        .ofMinSize(1)
        .ofMaxSize(6);
  }

  @Provide
  Arbitrary<Integer> bufferSizes() {
    return Arbitraries.of(1, 2, 3, 8, 1 << 16);
  }

  @Provide
  Arbitrary<Integer> chunks() {
    return Arbitraries.of(1, 5, 4096, 1 << 20);
  }

  @Test
  void aLineOfHundredsOfMegabytesIsSkippedWithTheBufferAtTheLimit() throws IOException {
    long big = 200L << 20;
    int limit = 1 << 20;
    LineReader r =
        new LineReader(
            new Generated(new long[] {1, big, 1, big}, new int[] {1, 2, 1, 0}, 1 << 16), "t");
    r.setMaxLineBytes(limit);
    assertThat(r.next()).isTrue();
    assertThat(r.overlong()).isFalse();
    assertThat(r.next()).isTrue();
    assertThat(r.overlong()).isTrue();
    assertThat(r.overlongBytes()).isEqualTo(big + 2);
    assertThat(r.next()).isTrue();
    assertThat(r.overlong()).isFalse();
    assertThat(r.lineNumber()).isEqualTo(3);
    assertThat(r.bytesConsumed()).isEqualTo(2 + big + 2 + 2);
    // a "binary file": no newline to the end
    assertThat(r.next()).isTrue();
    assertThat(r.overlong()).isTrue();
    assertThat(r.overlongBytes()).isEqualTo(big);
    assertThat(r.next()).isFalse();
    assertThat(r.bytesConsumed()).isEqualTo(2 * big + 6);
    assertThat(r.bytes().length).isLessThanOrEqualTo(limit + 2);
  }

  @Test
  void theLargestLimitIsALimitLikeAnyOther() throws IOException {
    int max = LineReader.MAX_LINE_BYTES;
    LineReader r =
        new LineReader(
            new Generated(new long[] {max, max + 1L, 3}, new int[] {2, 1, 1}, 1 << 20), "t");
    r.setMaxLineBytes(max);
    assertThat(r.next()).isTrue();
    assertThat(r.overlong()).isFalse();
    assertThat(r.length()).isEqualTo(max);
    assertThat(r.next()).isTrue();
    assertThat(r.overlong()).isTrue();
    assertThat(r.overlongBytes()).isEqualTo(max + 2L);
    assertThat(r.next()).isTrue();
    assertThat(r.length()).isEqualTo(3);
    assertThat(r.bytesConsumed()).isEqualTo(2L * max + 8);
  }

  @Test
  void withoutALimitALineOverTheLargestIsAnErrorNamingItsLine() {
    int max = LineReader.MAX_LINE_BYTES;
    LineReader r =
        new LineReader(
            new Generated(new long[] {1, max + 1L}, new int[] {1, 1}, 1 << 20), "dump.bin");
    assertThatThrownBy(
            () -> {
              while (r.next()) {
                // drain
              }
            })
        .isInstanceOf(IOException.class)
        .hasMessage("dump.bin:2: line longer than 64 MiB; is this a binary file?");
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
    InputStream failing =
        new InputStream() {
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
    assertThatThrownBy(
            () -> {
              while (r.next()) {
                // drain
              }
            })
        .hasMessage("shard-7.gz: read failed after line 1: Unexpected end of ZLIB input stream");
  }

  @Test
  void aByteOrderMarkBeforeTheFirstLineIsNotTextButStillCountsAsConsumed() throws IOException {
    byte[] bom = {(byte) 0xEF, (byte) 0xBB, (byte) 0xBF};
    byte[] text = "url,n\r\n\uFEFFx,1\n".getBytes(java.nio.charset.StandardCharsets.UTF_8);
    byte[] input = new byte[bom.length + text.length];
    System.arraycopy(bom, 0, input, 0, bom.length);
    System.arraycopy(text, 0, input, bom.length, text.length);
    try (LineReader r = new LineReader(new ByteArrayInputStream(input), "bom.csv")) {
      assertThat(r.next()).isTrue();
      assertThat(new String(r.bytes(), r.offset(), r.length(), "UTF-8")).isEqualTo("url,n");
      assertThat(r.bytesConsumed()).isEqualTo(3 + 7);
      assertThat(r.next()).isTrue();
      // only the file's first bytes are a mark: a U+FEFF inside the text is text
      assertThat(new String(r.bytes(), r.offset(), r.length(), "UTF-8")).isEqualTo("\uFEFFx,1");
      assertThat(r.bytesConsumed()).isEqualTo(input.length);
    }
  }

  private static List<String> readAll(InputStream in) throws IOException {
    List<String> lines = new ArrayList<>();
    try (LineReader r = new LineReader(in, "test")) {
      while (r.next()) {
        lines.add(
            new String(
                r.bytes(), r.offset(), r.length(), java.nio.charset.StandardCharsets.ISO_8859_1));
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

  /**
   * An input made of lines of given lengths and terminators (0, 1 = LF, 2 = CRLF), generated as it
   * is read, so that lines of hundreds of megabytes cost no memory. Content bytes are letters with
   * a lone {@code \r} here and there, never {@code \n} and never {@code \r} last.
   */
  private static final class Generated extends InputStream {
    private final long[] lengths;
    private final int[] terminators;
    private final int chunk;
    private int line;
    private long pos; // in the current line, terminator included

    Generated(long[] lengths, int[] terminators, int chunk) {
      this.lengths = lengths;
      this.terminators = terminators;
      this.chunk = chunk;
    }

    static byte content(int line, long pos, long length) {
      if ((pos & 1023) == 500 && pos != length - 1) {
        return '\r';
      }
      return (byte) ('a' + ((line + pos) & 15));
    }

    @Override
    public int read() {
      byte[] b = new byte[1];
      return read(b, 0, 1) < 0 ? -1 : b[0] & 0xFF;
    }

    @Override
    public int read(byte[] b, int off, int len) {
      while (line < lengths.length && pos == lengths[line] + terminators[line]) {
        line++;
        pos = 0;
      }
      if (line == lengths.length) {
        return -1;
      }
      long length = lengths[line];
      int n = (int) Math.min(Math.min(len, chunk), length + terminators[line] - pos);
      for (int i = 0; i < n; i++, pos++) {
        b[off + i] =
            pos < length
                ? content(line, pos, length)
                : pos == length + terminators[line] - 1 ? (byte) '\n' : (byte) '\r';
      }
      return n;
    }
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
