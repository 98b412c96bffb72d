package dev.idem.bench;

import dev.idem.engine.input.LineReader;
import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.BitSet;
import java.util.SplittableRandom;

/**
 * Generated inputs of the exact-dedup scenarios and their oracle. Record r carries key number
 * {@code c}; the c-th distinct key is 16 hex digits of an invertible mix of c, so the reference
 * output (each key's first record, in input order) holds keys 0, 1, 2, ... and {@link #check} maps
 * every output line back to its c with one bit per key, without holding the keys.
 */
final class LineData {

  private static final long K1 = 0x9E3779B97F4A7C15L;
  private static final long K2 = 0xBF58476D1CE4E5B9L;
  private static final long K1_INV = inverse(K1);
  private static final long K2_INV = inverse(K2);
  private static final byte[] HEX = "0123456789abcdef".getBytes(StandardCharsets.US_ASCII);

  private LineData() {}

  /** What a record looks like. */
  enum Shape {
    /** {@code https://www.example-NNN.com/item/<16 hex>?ref=N}: the whole line is the key. */
    URL("/item/"),
    /** {@code {"id":"<16 hex>","seq":N,"body":"..."}}: the key is field {@code id}. */
    JSONL("\"id\":\"");

    final byte[] marker;

    Shape(String marker) {
      this.marker = marker.getBytes(StandardCharsets.US_ASCII);
    }
  }

  /** How repeats are spread. */
  enum Dist {
    /** 30 % of the records repeat a key drawn uniformly from the keys seen before. */
    UNIFORM30,
    /**
     * 30 % repeats: a third one of the first 1000 keys, a third one of the last 1000, a third any.
     */
    MIXED30,
    /** The first 70 % of the records are new keys; the last 30 % repeat them, uniformly. */
    FAR30,
    /** One record in three repeats, spread as {@link #MIXED30}. */
    MIXED33,
    /** 90 % repeats, spread as {@link #MIXED30}. */
    MIXED90;

    static Dist of(String name) {
      return valueOf(name.toUpperCase(java.util.Locale.ROOT).replace('-', '_'));
    }
  }

  /** What generation learned. */
  record Facts(Shape shape, Dist dist, long records, long distinct, long bytes, long outputBytes) {}

  /** The key numbers of the records in input order, for the generator and for the checker. */
  static final class Keys {
    private final Dist dist;
    private final long newUntil;
    private final SplittableRandom rnd = new SplittableRandom(20261202L);
    private long distinct;
    private boolean lastNew;

    Keys(Dist dist, long records) {
      this.dist = dist;
      this.newUntil = records * 7 / 10;
    }

    /** The key number of record {@code r} (asked for in order 0, 1, 2, ...). */
    long next(long r) {
      lastNew =
          distinct == 0
              || switch (dist) {
                case UNIFORM30, MIXED30 -> rnd.nextInt(100) >= 30;
                case MIXED90 -> rnd.nextInt(100) >= 90;
                case MIXED33 -> rnd.nextInt(3) != 0;
                case FAR30 -> r < newUntil;
              };
      if (lastNew) {
        return distinct++;
      }
      if (dist == Dist.FAR30 || dist == Dist.UNIFORM30) {
        return rnd.nextLong(distinct);
      }
      return switch (rnd.nextInt(3)) {
        case 0 -> rnd.nextLong(Math.min(distinct, 1000));
        case 1 -> distinct - 1 - rnd.nextLong(Math.min(distinct, 1000));
        default -> rnd.nextLong(distinct);
      };
    }

    boolean lastNew() {
      return lastNew;
    }

    long distinct() {
      return distinct;
    }
  }

  /** Writes {@code records} records to {@code file}. */
  static Facts generate(Shape shape, Dist dist, long records, Path file) throws IOException {
    Keys keys = new Keys(dist, records);
    long bytes = 0;
    long outBytes = 0;
    byte[] line = new byte[256];
    try (OutputStream out = new BufferedOutputStream(Files.newOutputStream(file), 1 << 20)) {
      for (long r = 0; r < records; r++) {
        int len = line(shape, line, keys.next(r), r);
        out.write(line, 0, len);
        bytes += len;
        outBytes += keys.lastNew() ? len : 0;
      }
    }
    return new Facts(shape, dist, records, keys.distinct(), bytes, outBytes);
  }

  /** The record number of each key's first occurrence, by key number (replays the generator). */
  static int[] firstRecords(Dist dist, long records, long distinct) {
    int[] first = new int[Math.toIntExact(distinct)];
    Keys keys = new Keys(dist, records);
    for (long r = 0; r < records; r++) {
      long c = keys.next(r);
      if (keys.lastNew()) {
        first[(int) c] = Math.toIntExact(r);
      }
    }
    return first;
  }

  /** Writes record {@code seq} with key number {@code c}, newline included; returns its length. */
  static int line(Shape shape, byte[] b, long c, long seq) {
    long x = encode(c);
    int p;
    if (shape == Shape.JSONL) {
      p = hex(b, put(b, 0, "{\"id\":\""), x);
      p = put(b, p, "\",\"seq\":" + seq + ",\"body\":\"lorem ipsum dolor sit amet\"}");
    } else {
      p = put(b, 0, "https://www.example-" + (100 + Long.remainderUnsigned(x, 900)) + ".com/item/");
      p = put(b, hex(b, p, x), "?ref=" + Long.remainderUnsigned(x >>> 7, 1000));
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

  private static int hex(byte[] b, int p, long x) {
    for (int shift = 60; shift >= 0; shift -= 4) {
      b[p++] = HEX[(int) (x >>> shift) & 15];
    }
    return p;
  }

  /** An invertible mix of the key number. */
  static long encode(long c) {
    long m = c * K1;
    m ^= m >>> 32;
    return m * K2;
  }

  static long decode(long x) {
    long m = x * K2_INV;
    m ^= m >>> 32;
    return m * K1_INV;
  }

  /** The key number of a line: the 16 hex digits after the shape's marker, or -1. */
  static long keyNumber(Shape shape, byte[] b, int off, int len) {
    byte[] marker = shape.marker;
    outer:
    for (int i = off, end = off + len - marker.length - 16; i <= end; i++) {
      for (int j = 0; j < marker.length; j++) {
        if (b[i + j] != marker[j]) {
          continue outer;
        }
      }
      long x = 0;
      for (int j = i + marker.length, e = j + 16; j < e; j++) {
        int d = Character.digit(b[j], 16);
        if (d < 0) {
          return -1;
        }
        x = (x << 4) | d;
      }
      return decode(x);
    }
    return -1;
  }

  private static long inverse(long k) {
    long inv = k;
    for (int i = 0; i < 6; i++) {
      inv *= 2 - k * inv;
    }
    return inv;
  }

  /**
   * An output against the reference: keys missed, keys written twice, lines that are not byte for
   * byte their key's first record (altered), lines of no key (unknown), bytes the line reader hid
   * (a {@code \r}, a missing last newline), and whether the keys come in first-occurrence order.
   */
  record Check(
      long lines,
      long missed,
      long duplicated,
      long unknown,
      long altered,
      long strayBytes,
      boolean inOrder) {

    /** Every key once, every line its key's first record: true for a correct set. */
    boolean exact() {
      return missed == 0 && duplicated == 0 && unknown == 0 && altered == 0 && strayBytes == 0;
    }

    /** Correct for a contender that promises input order ({@code ordered}) or only the set. */
    boolean correct(boolean ordered) {
      return exact() && (inOrder || !ordered);
    }

    String describe(boolean ordered) {
      if (exact()) {
        return inOrder ? "exact, input order" : ordered ? "exact set, wrong order" : "exact set";
      }
      return String.format(
          java.util.Locale.ROOT,
          "missed %d, duplicated %d, unknown %d, altered %d, stray bytes %d",
          missed,
          duplicated,
          unknown,
          altered,
          strayBytes);
    }
  }

  /**
   * Checks {@code output} against the reference of data with {@code distinct} keys. {@code
   * firstRecord} (JSONL: the record number of each key's first occurrence) makes every line be
   * compared byte for byte; URL lines are always compared, since a line is a function of its key.
   */
  static Check check(Shape shape, Path output, long distinct, int[] firstRecord)
      throws IOException {
    BitSet seen = new BitSet((int) distinct);
    long lines = 0;
    long duplicated = 0;
    long unknown = 0;
    long altered = 0;
    long lineBytes = 0;
    boolean inOrder = true;
    boolean bytes = shape == Shape.URL || firstRecord != null;
    byte[] expected = new byte[256];
    if (Files.exists(output)) {
      try (InputStream in = Files.newInputStream(output);
          LineReader r = new LineReader(in, output.toString())) {
        while (r.next()) {
          long c = keyNumber(shape, r.bytes(), r.offset(), r.length());
          if (c < 0 || c >= distinct) {
            unknown++;
            inOrder = false;
          } else {
            int len = line(shape, expected, c, firstRecord == null ? 0 : firstRecord[(int) c]) - 1;
            if (bytes
                && !Arrays.equals(
                    expected, 0, len, r.bytes(), r.offset(), r.offset() + r.length())) {
              altered++;
            }
            if (seen.get((int) c)) {
              duplicated++;
              inOrder = false;
            } else {
              inOrder &= c == lines - duplicated - unknown;
              seen.set((int) c);
            }
          }
          lines++;
          lineBytes += r.length() + 1;
        }
      }
    }
    long stray = Files.exists(output) ? Files.size(output) - lineBytes : 0;
    return new Check(
        lines, distinct - seen.cardinality(), duplicated, unknown, altered, stray, inOrder);
  }
}
