package dev.idem.bench;

import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.SplittableRandom;

/**
 * The generated inputs of the sort-dedup benchmark, the same bytes on every run: log-like lines and
 * JSON Lines of 60 to 100 bytes (about 80 on average) in which a fixed share of the records repeats
 * an earlier key. A repeated line is the earlier line again; a repeated JSON record has the earlier
 * {@code id} with other fields, so only a dedup by key removes it. While writing, the generator
 * digests what a keep-first dedup must write: the first record of each key, in order.
 */
final class SortDedupInputs {

  /** One generated file and the digest of its expected keep-first output. */
  record Input(Path file, long bytes, long records, long keys, LineDigest expected) {}

  private static final byte[] HEX = "0123456789abcdef".getBytes(StandardCharsets.US_ASCII);
  private static final String[] EVENTS = {"click", "view", "purchase", "scroll"};

  private final double duplicateShare;
  private final long seed;

  SortDedupInputs(double duplicateShare, long seed) {
    this.duplicateShare = duplicateShare;
    this.seed = seed;
  }

  /** Lines like {@code 2026-12-02T07:41:09.311Z GET /items/123?s=9f0c1a2b 200 qwzx…}. */
  Input lines(Path file, long targetBytes) throws IOException {
    return generate(file, targetBytes, false);
  }

  /** JSON Lines like {@code {"id":"u0000000123","n":456,"ev":"click","text":"qwzx…"}}. */
  Input jsonLines(Path file, long targetBytes) throws IOException {
    return generate(file, targetBytes, true);
  }

  private Input generate(Path file, long targetBytes, boolean json) throws IOException {
    SplittableRandom random = new SplittableRandom(seed);
    LineDigest expected = new LineDigest();
    byte[] line = new byte[256];
    long bytes = 0;
    long records = 0;
    long keys = 0;
    try (OutputStream out = new BufferedOutputStream(Files.newOutputStream(file), 1 << 20)) {
      while (bytes < targetBytes) {
        boolean repeat = keys > 0 && random.nextDouble() < duplicateShare;
        long key = repeat ? random.nextLong(keys) : keys++;
        int n = json ? jsonRecord(line, key, records) : logLine(line, key);
        out.write(line, 0, n);
        if (!repeat) {
          expected.line(line, 0, n);
        }
        bytes += n;
        records++;
      }
    }
    return new Input(file, bytes, records, keys, expected);
  }

  /** A line that depends only on its key, so a repeat is the same bytes. */
  private int logLine(byte[] b, long key) {
    long h = mix(key ^ seed);
    int p = put(b, 0, "2026-12-02T");
    p = twoDigits(b, p, (int) ((h >>> 8) % 24));
    b[p++] = ':';
    p = twoDigits(b, p, (int) ((h >>> 16) % 60));
    b[p++] = ':';
    p = twoDigits(b, p, (int) ((h >>> 24) % 60));
    b[p++] = '.';
    p = decimal(b, p, 100 + (h >>> 32) % 900);
    p = put(b, p, "Z GET /items/");
    p = decimal(b, p, key);
    p = put(b, p, "?s=");
    for (int i = 0; i < 8; i++) {
      b[p++] = HEX[(int) (h >>> (4 * i)) & 15];
    }
    p = put(b, p, (h & 7) == 0 ? " 404 " : " 200 ");
    return letters(b, p, mix(h), 28);
  }

  /** A record whose id is its key and whose other fields depend on its position. */
  private int jsonRecord(byte[] b, long key, long position) {
    long h = mix(position ^ ~seed);
    int p = put(b, 0, "{\"id\":\"u");
    String digits = Long.toString(key);
    for (int i = digits.length(); i < 10; i++) {
      b[p++] = '0';
    }
    p = put(b, p, digits);
    p = put(b, p, "\",\"n\":");
    p = decimal(b, p, position);
    p = put(b, p, ",\"ev\":\"");
    p = put(b, p, EVENTS[(int) (h & 3)]);
    p = put(b, p, "\",\"text\":\"");
    p = letters(b, p, h, 24) - 1; // without its newline
    return put(b, p, "\"}\n");
  }

  /** 4 to {@code 4 + spread - 1} lowercase letters from {@code h}, then a newline. */
  private static int letters(byte[] b, int p, long h, int spread) {
    int n = 4 + (int) Long.remainderUnsigned(h, spread);
    long x = h;
    for (int i = 0; i < n; i++) {
      x = mix(x);
      b[p++] = (byte) ('a' + (int) Long.remainderUnsigned(x, 26));
    }
    b[p++] = '\n';
    return p;
  }

  private static int put(byte[] b, int p, String s) {
    for (int i = 0; i < s.length(); i++) {
      b[p++] = (byte) s.charAt(i);
    }
    return p;
  }

  private static int twoDigits(byte[] b, int p, int v) {
    b[p++] = (byte) ('0' + v / 10);
    b[p++] = (byte) ('0' + v % 10);
    return p;
  }

  private static int decimal(byte[] b, int p, long v) {
    return put(b, p, Long.toString(v));
  }

  /** SplitMix64's finaliser: a key's bits, well spread. */
  static long mix(long z) {
    z = (z ^ (z >>> 30)) * 0xbf58476d1ce4e5b9L;
    z = (z ^ (z >>> 27)) * 0x94d049bb133111ebL;
    return z ^ (z >>> 31);
  }
}
