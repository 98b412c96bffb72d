package dev.idem.bench;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;

/**
 * Before Part B measures DuckDB, checks on a small input that its contender command is byte-exact:
 * lines with commas, double quotes, tabs, backslashes, non-ASCII text, control bytes, CSV and NULL
 * look-alikes, an empty line and a long line, each repeated at random, must come out as the first
 * occurrences in input order, byte for byte (and, keyed, JSON records whose bodies hold the same
 * text, the whole first record of each id). The benchmark inputs contain none of these bytes, so
 * their own check could not catch a reader or writer that interprets them.
 */
final class DuckDbProbe {

  private DuckDbProbe() {}

  /** The texts that a CSV reader or writer could take for something else. */
  static final List<String> TRICKY =
      List.of(
          "a,b,c",
          "\"quoted, with a comma\"",
          "say \"hi\"\tand\ttabs\\and\\backslashes\\",
          "naïve café, 日本語, Ελληνικά, 🦆",
          "\\N",
          "NULL",
          "null",
          "",
          "   leading and trailing spaces   ",
          "\"",
          "\"\"",
          "'single quotes'",
          "#not a comment",
          "line",
          "a;b|c\u0001d\u001fe",
          "\\\"escaped\\\" \\t \\n (backslash text, not escapes)",
          "x,".repeat(3000));

  /**
   * Runs {@code command} on a whole-line probe and {@code keyed} (keyed by {@code id}) on a JSONL
   * probe in {@code dir}; returns one report line per probe, "… byte-exact" or what went wrong.
   */
  static List<String> run(
      ThroughputBenchmark.Command command, ThroughputBenchmark.Command keyed, Path dir)
      throws IOException, InterruptedException {
    Files.createDirectories(dir);
    SplittableRandom rnd = new SplittableRandom(18);
    Map<String, String> lines = new LinkedHashMap<>();
    Map<String, String> records = new LinkedHashMap<>();
    StringBuilder lineInput = new StringBuilder();
    StringBuilder recordInput = new StringBuilder();
    for (int i = 0; i < 2000; i++) {
      String text =
          rnd.nextInt(4) == 0
              ? "row " + rnd.nextInt(300) + ", \"" + rnd.nextInt(10) + "\"\t\\"
              : TRICKY.get(rnd.nextInt(TRICKY.size()));
      lineInput.append(text).append('\n');
      lines.putIfAbsent(text, text);
      String id = "k" + rnd.nextInt(400);
      String body = "\"body\":\"" + json(text) + " #" + i + "\"";
      String record =
          rnd.nextBoolean()
              ? "{\"id\":\"" + id + "\"," + body + "}"
              : "{" + body + ",\"n\":{\"x\":\"y\"},\"id\":\"" + id + "\"}";
      recordInput.append(record).append('\n');
      records.putIfAbsent(id, record);
    }
    return List.of(
        probe("whole lines", command, dir.resolve("lines"), lineInput, lines.values()),
        probe("keyed JSONL", keyed, dir.resolve("keyed"), recordInput, records.values()));
  }

  private static String probe(
      String name,
      ThroughputBenchmark.Command command,
      Path dir,
      CharSequence input,
      Iterable<String> expectedLines)
      throws IOException, InterruptedException {
    Files.createDirectories(dir);
    Path in = dir.resolve("in.txt");
    Path out = dir.resolve("out.txt");
    Path log = dir.resolve("log.txt");
    Files.writeString(in, input, StandardCharsets.UTF_8);
    ByteArrayOutputStream expected = new ByteArrayOutputStream();
    int n = 0;
    for (String line : expectedLines) {
      expected.writeBytes((line + "\n").getBytes(StandardCharsets.UTF_8));
      n++;
    }
    Process p =
        new ProcessBuilder(command.of(in, out, dir.resolve("scratch"), dir.resolve("stats.txt")))
            .redirectErrorStream(true)
            .redirectOutput(log.toFile())
            .start();
    String verdict;
    if (!p.waitFor(5, TimeUnit.MINUTES)) {
      p.destroyForcibly();
      verdict = "timed out";
    } else if (p.exitValue() != 0) {
      verdict = "failed (exit " + p.exitValue() + "): " + Files.readString(log).strip();
    } else {
      byte[] got = Files.readAllBytes(out);
      verdict =
          Arrays.equals(got, expected.toByteArray())
              ? "byte-exact"
              : "NOT byte-exact: " + got.length + " bytes, expected " + expected.size();
    }
    return String.format(
        Locale.ROOT,
        "DuckDB probe, %s (%,d lines → %,d first occurrences): %s",
        name,
        2000,
        n,
        verdict);
  }

  /** {@code text} as the inside of a JSON string. */
  private static String json(String text) {
    StringBuilder b = new StringBuilder();
    for (char ch : text.toCharArray()) {
      switch (ch) {
        case '"' -> b.append("\\\"");
        case '\\' -> b.append("\\\\");
        case '\t' -> b.append("\\t");
        default -> {
          if (ch < 0x20) {
            b.append(String.format(Locale.ROOT, "\\u%04x", (int) ch));
          } else {
            b.append(ch);
          }
        }
      }
    }
    return b.toString();
  }
}
