package dev.idem.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@code .zst} and {@code .gz} through the commands, checked with the real {@code zstd} and {@code
 * gzip} tools (CI installs both): inputs they wrote are read, outputs idem wrote they read, and a
 * compressed output holds the same records as a plain one.
 */
class CompressedFilesTest {

  @TempDir Path dir;

  @ParameterizedTest
  @ValueSource(strings = {"zst", "gz"})
  void aCompressedOutputOfACompressedInputHoldsWhatAPlainRunWrites(String ext) throws Exception {
    DedupInput data = DedupInput.generate(30_000, 41L);
    Path plain = dir.resolve("events.jsonl");
    Files.write(plain, data.input);
    Path compressed = compress(ext, plain);

    Path out = dir.resolve("clean.jsonl." + ext);
    String[] job = {
      "dedup",
      "--key",
      "id",
      "--state",
      dir.resolve("state").toString(),
      "--checkpoint-every",
      "2000", // many checkpoints: many frames
      "--dropped",
      dir.resolve("dropped.tsv." + ext).toString(),
      "-o",
      out.toString(),
      compressed.toString()
    };
    Cli.Result r = Cli.run(job);
    assertThat(r.status()).as(r.err()).isZero();
    assertThat(decompress(ext, out)).isEqualTo(data.expected);
    assertThat(decompress(ext, dir.resolve("dropped.tsv." + ext))).isNotEmpty();

    // a second run of a finished job changes nothing, and the file still decompresses
    Cli.Result again = Cli.run(job);
    assertThat(again.status()).as(again.err()).isZero();
    assertThat(decompress(ext, out)).isEqualTo(data.expected);
  }

  @ParameterizedTest
  @ValueSource(strings = {"bzip2", "xz"})
  void inputsTheOtherToolsWroteAreReadWhateverTheirName(String tool) throws Exception {
    DedupInput data = DedupInput.generate(20_000, 53L);
    Path plain = dir.resolve("events.jsonl");
    Files.write(plain, data.input);
    Process p = new ProcessBuilder(tool, "-k", "-q", plain.toString()).start();
    assertThat(p.waitFor(60, TimeUnit.SECONDS) && p.exitValue() == 0).isTrue();
    Path compressed = dir.resolve("events.jsonl" + (tool.equals("xz") ? ".xz" : ".bz2"));
    Path renamed = Files.move(compressed, dir.resolve("events-without-suffix"));
    Cli.Result r = Cli.run("dedup", "--key", "id", "-q", renamed.toString());
    assertThat(r.status()).as(r.err()).isZero();
    assertThat(r.outBytes()).isEqualTo(data.expected);
  }

  @Test
  void sortDedupAndSplitWriteZstdThatZstdReads() throws Exception {
    DedupInput data = DedupInput.generate(20_000, 43L);
    Path plain = dir.resolve("events.jsonl");
    Files.write(plain, data.input);
    Path zst = compress("zst", plain);

    Path sorted = dir.resolve("sorted.jsonl.zst");
    Cli.Result r =
        Cli.run("sort-dedup", "--key", "id", "-o", sorted.toString(), "--quiet", zst.toString());
    assertThat(r.status()).as(r.err()).isZero();
    assertThat(decompress("zst", sorted)).isEqualTo(data.expected);

    Path shards = dir.resolve("shards");
    Cli.Result split =
        Cli.run(
            "split",
            "--key",
            "id",
            "--shards",
            "3",
            "--compress",
            "zstd",
            "--checkpoint-every",
            "1000",
            "-o",
            shards.toString(),
            zst.toString());
    assertThat(split.status()).as(split.err()).isZero();
    long lines = 0;
    for (int i = 0; i < 3; i++) {
      Path shard = shards.resolve(String.format("shard-%05d.jsonl.zst", i));
      lines += countLines(decompress("zst", shard));
    }
    assertThat(lines).isEqualTo(countLines(data.input));
  }

  @Test
  void aTruncatedZstdInputIsNamedNotAStackTrace() throws Exception {
    DedupInput data = DedupInput.generate(20_000, 47L);
    Path plain = dir.resolve("events.jsonl");
    Files.write(plain, data.input);
    Path zst = compress("zst", plain);
    byte[] stored = Files.readAllBytes(zst);
    Files.write(zst, java.util.Arrays.copyOf(stored, stored.length / 2));

    Cli.Result r = Cli.run("dedup", "--key", "id", zst.toString());
    assertThat(r.status()).isEqualTo(1);
    assertThat(r.err()).contains(zst.toString()).contains("truncated zstd file");
    assertThat(r.err()).doesNotContain("\tat ");
  }

  private static long countLines(byte[] text) {
    long n = 0;
    for (byte b : text) {
      n += b == '\n' ? 1 : 0;
    }
    return n;
  }

  /** {@code zstd} or {@code gzip} run on {@code file}, keeping it. */
  private static Path compress(String ext, Path file) throws Exception {
    tool(ext, "-k", "-q", file.toString());
    return file.resolveSibling(file.getFileName() + "." + ext);
  }

  private static byte[] decompress(String ext, Path file) throws Exception {
    return tool(ext, "-dc", file.toString());
  }

  private static byte[] tool(String ext, String... args) throws Exception {
    String[] command = new String[args.length + 1];
    command[0] = ext.equals("zst") ? "zstd" : "gzip";
    System.arraycopy(args, 0, command, 1, args.length);
    Process p = new ProcessBuilder(command).redirectErrorStream(false).start();
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    p.getInputStream().transferTo(out);
    String err = new String(p.getErrorStream().readAllBytes());
    assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
    assertThat(p.exitValue()).as("%s: %s", String.join(" ", command), err).isZero();
    return out.toByteArray();
  }
}
