package dev.idem.engine.output;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idem.engine.input.Compression;
import dev.idem.engine.input.Inputs;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Tuple;
import net.jqwik.api.Tuple.Tuple2;
import org.apache.commons.compress.compressors.bzip2.BZip2CompressorOutputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.tukaani.xz.LZMA2Options;
import org.tukaani.xz.XZOutputStream;

/**
 * Compressed outputs as frames: whatever the writes and checkpoints, the file decompresses to what
 * was written; cut back to a checkpoint and appended to, to what the checkpoint had plus what came
 * after; and the real {@code gzip} and {@code zstd} tools read it (CI installs both).
 */
class CompressedOutputTest {

  @TempDir Path dir;

  /** Chunks to write, each followed by a checkpoint ({@code flush}) or not. */
  @Provide
  Arbitrary<List<Tuple2<byte[], Boolean>>> writes() {
    Arbitrary<byte[]> chunk =
        Arbitraries.integers()
            .between(0, 100_000)
            .flatMap(
                n ->
                    Arbitraries.longs()
                        .map(seed -> text(new Random(seed), n))); // compressible, like records
    return Combinators.combine(chunk, Arbitraries.of(true, false))
        .as(Tuple::of)
        .list()
        .ofMaxSize(12);
  }

  @Property(tries = 60)
  void theFileDecompressesToEverythingWritten(
      @ForAll("writes") List<Tuple2<byte[], Boolean>> writes,
      @ForAll("compressed") Compression compression)
      throws IOException {
    Path file = scratch(compression);
    ByteArrayOutputStream expected = new ByteArrayOutputStream();
    try (OutputFile out = OutputFile.open(file)) {
      for (Tuple2<byte[], Boolean> w : writes) {
        out.write(w.get1(), 0, w.get1().length);
        expected.write(w.get1());
        if (w.get2()) {
          out.flush();
          assertThat(out.length()).isEqualTo(Files.size(file));
        }
      }
    }
    assertThat(decompressed(file)).isEqualTo(expected.toByteArray());
  }

  @Provide
  Arbitrary<Compression> compressed() {
    return Arbitraries.of(Compression.GZIP, Compression.ZSTD);
  }

  @Property(tries = 40)
  void aFileCutBackToACheckpointAndAppendedToHoldsTheCheckpointsBytesAndTheNewOnes(
      @ForAll("compressed") Compression compression,
      @ForAll("writes") List<Tuple2<byte[], Boolean>> before,
      @ForAll("writes") List<Tuple2<byte[], Boolean>> lost,
      @ForAll("writes") List<Tuple2<byte[], Boolean>> after)
      throws IOException {
    Path file = scratch(compression);
    ByteArrayOutputStream expected = new ByteArrayOutputStream();
    long checkpoint;
    Long tail;
    try (OutputFile out = OutputFile.open(file)) {
      for (Tuple2<byte[], Boolean> w : before) {
        out.write(w.get1(), 0, w.get1().length);
        expected.write(w.get1());
      }
      out.flush();
      checkpoint = out.length();
      tail = out.tailChecksum();
      for (Tuple2<byte[], Boolean> w : lost) { // written after the checkpoint, then "killed"
        out.write(w.get1(), 0, w.get1().length);
        if (w.get2()) {
          out.flush();
        }
      }
    }
    try (OutputFile out = OutputFile.open(file, checkpoint, tail)) {
      for (Tuple2<byte[], Boolean> w : after) {
        out.write(w.get1(), 0, w.get1().length);
        expected.write(w.get1());
      }
    }
    assertThat(decompressed(file)).isEqualTo(expected.toByteArray());
  }

  @ParameterizedTest
  @EnumSource(
      value = Compression.class,
      names = {"GZIP", "ZSTD"})
  void theRealToolReadsAFileOfManyFramesAndAnEmptyOne(Compression compression) throws Exception {
    byte[] text = text(new Random(7), 3_000_000);
    Path file = dir.resolve("frames.jsonl" + compression.suffix());
    try (OutputFile out = OutputFile.open(file)) {
      for (int at = 0; at < text.length; at += 250_000) {
        out.write(text, at, Math.min(250_000, text.length - at));
        out.flush();
      }
    }
    assertThat(tool(compression, file)).isEqualTo(text);

    Path empty = dir.resolve("empty.jsonl" + compression.suffix());
    try (OutputFile out = OutputFile.open(empty)) {
      assertThat(out.length()).isZero();
    }
    assertThat(Files.size(empty)).isPositive();
    assertThat(tool(compression, empty)).isEmpty();
  }

  @ParameterizedTest
  @EnumSource(
      value = Compression.class,
      names = {"GZIP", "ZSTD"})
  void aDamagedOrTruncatedInputIsNamedWithWhatIsWrong(Compression compression) throws Exception {
    byte[] text = text(new Random(11), 500_000);
    Path good = dir.resolve("in.jsonl" + compression.suffix());
    try (OutputFile out = OutputFile.open(good)) {
      out.write(text, 0, text.length);
    }
    byte[] stored = Files.readAllBytes(good);

    Path truncated = dir.resolve("cut.jsonl" + compression.suffix());
    Files.write(truncated, Arrays.copyOf(stored, stored.length / 2));
    assertThatThrownBy(() -> readAll(truncated))
        .isInstanceOf(IOException.class)
        .hasMessageContaining(truncated.toString())
        .hasMessageContaining("truncated " + compression + " file");

    Path notCompressed = dir.resolve("plain.jsonl" + compression.suffix());
    Files.write(notCompressed, text);
    assertThatThrownBy(() -> readAll(notCompressed))
        .isInstanceOf(IOException.class)
        .hasMessageContaining(notCompressed.toString())
        .hasMessageContaining(compression.toString());

    Path corrupt = dir.resolve("corrupt.jsonl" + compression.suffix());
    byte[] damaged = stored.clone();
    for (int i = 40; i < damaged.length; i += 97) {
      damaged[i] ^= 0x5a;
    }
    Files.write(corrupt, damaged);
    assertThatThrownBy(() -> readAll(corrupt))
        .isInstanceOf(IOException.class)
        .hasMessageContaining(corrupt.toString())
        .hasMessageContaining(compression.toString());
  }

  @Test
  void anInputIsDecompressedByItsMagicNumberWhateverItsName() throws IOException {
    byte[] text = text(new Random(13), 200_000);
    Path gz = dir.resolve("a.jsonl.gz");
    try (OutputFile out = OutputFile.open(gz)) {
      out.write(text, 0, text.length);
    }
    Path zst = dir.resolve("b.jsonl.zst");
    try (OutputFile out = OutputFile.open(zst)) {
      out.write(text, 0, text.length);
    }
    Path xz = dir.resolve("c.jsonl.xz");
    try (OutputStream out = new XZOutputStream(Files.newOutputStream(xz), new LZMA2Options())) {
      out.write(text);
    }
    Path bz2 = dir.resolve("d.jsonl.bz2");
    try (OutputStream out = Files.newOutputStream(bz2)) { // two streams, as pbzip2 writes them
      int half = text.length / 2;
      try (OutputStream first = new BZip2CompressorOutputStream(new NonClosing(out))) {
        first.write(text, 0, half);
      }
      try (OutputStream second = new BZip2CompressorOutputStream(new NonClosing(out))) {
        second.write(text, half, text.length - half);
      }
    }
    for (Path compressed : List.of(gz, zst, xz, bz2)) {
      for (String name : List.of("UPPER.JSONL.GZ", "no-suffix", "wrong.jsonl.zst")) {
        Path renamed = dir.resolve(compressed.getFileName() + "-" + name);
        Files.copy(compressed, renamed);
        assertThat(decompressed(renamed)).as("%s", renamed).isEqualTo(text);
        assertThat(Compression.ofInput(renamed)).isEqualTo(Compression.ofInput(compressed));
      }
    }
    assertThat(Compression.ofInput(xz)).isEqualTo(Compression.XZ);
    assertThat(Compression.ofInput(bz2)).isEqualTo(Compression.BZIP2);
    Path cut = dir.resolve("cut.jsonl.bz2");
    byte[] stored = Files.readAllBytes(bz2);
    Files.write(cut, Arrays.copyOf(stored, stored.length / 3));
    assertThatThrownBy(() -> readAll(cut))
        .isInstanceOf(IOException.class)
        .hasMessageContaining(cut.toString())
        .hasMessageContaining("bzip2");

    Path plain = dir.resolve("plain.jsonl");
    Files.write(plain, text);
    assertThat(Compression.ofInput(plain)).isEqualTo(Compression.NONE);
    assertThat(decompressed(plain)).isEqualTo(text);
    assertThatThrownBy(() -> OutputFile.open(dir.resolve("out.jsonl.xz")))
        .isInstanceOf(IOException.class)
        .hasMessageContaining("not .xz");
  }

  @Test
  void theSuffixTellsTheCompressionAndTheFormatNameUnderIt() {
    assertThat(Compression.of("a.jsonl.zst")).isEqualTo(Compression.ZSTD);
    assertThat(Compression.of("a.tsv.gz")).isEqualTo(Compression.GZIP);
    assertThat(Compression.of("a.zstd")).isEqualTo(Compression.NONE);
    assertThat(Compression.withoutSuffix("lake/a.tsv.zst")).isEqualTo("lake/a.tsv");
    assertThat(Compression.withoutSuffix("a.csv")).isEqualTo("a.csv");
  }

  /** Keeps the file open when one compressed stream of several ends. */
  private static final class NonClosing extends java.io.FilterOutputStream {
    NonClosing(OutputStream out) {
      super(out);
    }

    @Override
    public void write(byte[] b, int off, int len) throws IOException {
      out.write(b, off, len);
    }

    @Override
    public void close() throws IOException {
      flush();
    }
  }

  /** A file for a property's try (jqwik has no {@code @TempDir}), gone when the JVM exits. */
  private static Path scratch(Compression compression) throws IOException {
    Path file = Files.createTempFile("idem-compressed", ".jsonl" + compression.suffix());
    file.toFile().deleteOnExit();
    return file;
  }

  private static void readAll(Path file) throws IOException {
    try (InputStream in = Inputs.open(file.toString(), InputStream.nullInputStream())) {
      in.transferTo(OutputStream.nullOutputStream());
    }
  }

  private static byte[] decompressed(Path file) throws IOException {
    try (InputStream in = Inputs.open(file.toString(), InputStream.nullInputStream())) {
      return in.readAllBytes();
    }
  }

  /** What {@code gzip -dc} or {@code zstd -dc} makes of {@code file}. */
  private static byte[] tool(Compression compression, Path file) throws Exception {
    Path decoded = file.resolveSibling(file.getFileName() + ".decoded");
    Process p =
        new ProcessBuilder(
                compression == Compression.GZIP ? "gzip" : "zstd", "-dc", file.toString())
            .redirectOutput(decoded.toFile())
            .redirectError(ProcessBuilder.Redirect.INHERIT)
            .start();
    assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
    assertThat(p.exitValue()).as("%s -dc %s", compression, file).isZero();
    return Files.readAllBytes(decoded);
  }

  /** JSON-Lines-like text: repetitive enough to compress, varied enough to need several blocks. */
  static byte[] text(Random random, int length) {
    StringBuilder s = new StringBuilder(length + 64);
    while (s.length() < length) {
      s.append("{\"id\":\"u")
          .append(random.nextInt(1_000_000))
          .append("\",\"v\":")
          .append(random.nextLong())
          .append("}\n");
    }
    return s.substring(0, length).getBytes(StandardCharsets.UTF_8);
  }
}
