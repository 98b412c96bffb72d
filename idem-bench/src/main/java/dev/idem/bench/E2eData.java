package dev.idem.bench;

import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.SplittableRandom;

/**
 * The end-to-end benchmark's inputs, generated deterministically: {@code records} records of which
 * about 30 % repeat an earlier key (the {@link Dist#DEFAULT default} distribution). A repeat is, in
 * equal shares, one of the first 1000 keys (hot keys, each repeated thousands of times), one of the
 * last 1000 new keys (near duplicates, which land close to every kill point and checkpoint), or any
 * earlier key (so repeats of early keys keep coming until the very end). Part B can also use the
 * other {@link Dist distributions}.
 *
 * <p>The c-th distinct key is 16 hex digits of an invertible mix of c, so the reference output
 * (distinct keys in first-occurrence order) is simply c = 0, 1, 2, ... and a verifier can map any
 * output line back to its c without holding the keys.
 */
final class E2eData {

  static final int DUPLICATE_PERCENT = 30;
  private static final long K1 = 0x9E3779B97F4A7C15L;
  private static final long K2 = 0xBF58476D1CE4E5B9L;
  private static final long K1_INV = inverse(K1);
  private static final long K2_INV = inverse(K2);
  private static final byte[] HEX = "0123456789abcdef".getBytes(StandardCharsets.US_ASCII);

  /** What generation learned: distinct keys and output bytes of the reference at kill points. */
  record Facts(
      long records,
      long distinct,
      long inputBytes,
      long referenceBytes,
      long[] killRecords,
      long[] referenceBytesAtKill) {}

  enum Shape {
    /** {@code {"id":"<16 hex>","seq":N,"body":"..."}}: keys in field {@code id}. */
    JSONL("\"id\":\""),
    /** {@code https://www.example-NNN.com/item/<16 hex>?ref=N}: the whole line is the key. */
    URL_LINES("/item/");

    final byte[] marker;

    Shape(String marker) {
      this.marker = marker.getBytes(StandardCharsets.US_ASCII);
    }
  }

  /** How duplicates are spread over the input (Part B's {@code --dist}). */
  enum Dist {
    /** 30 % duplicates: hot keys, near duplicates and any earlier key, a third each. */
    DEFAULT("default", "30 % duplicates: a third hot keys, a third near, a third any earlier key"),
    /**
     * 30 % duplicates, all far apart: the first 70 % of the records are new keys, the last 30 %
     * repeat keys drawn uniformly (with replacement) from them; no hot keys, and a repeat is on
     * average about half the file away from its first occurrence.
     */
    FAR(
        "far",
        "30 % duplicates, far apart: the last 30 % of the records repeat keys drawn uniformly"
            + " from the first 70 % (no hot keys)"),
    /** 90 % duplicates, spread like the default's (hot, near and any earlier key). */
    DUP90("dup90", "90 % duplicates: a third hot keys, a third near, a third any earlier key"),
    /**
     * One record in three repeats an earlier key (distinct ≈ 2/3 of the records), spread like the
     * default's (hot, near and any earlier key): Part C's data (issue #19: 60 M lines, 40 M
     * distinct).
     */
    DUP33(
        "dup33",
        "33 % duplicates (one record in three): a third hot keys, a third near, a third any"
            + " earlier key");

    final String id;
    final String description;

    Dist(String id, String description) {
      this.id = id;
      this.description = description;
    }

    static Dist byName(String name) {
      for (Dist d : values()) {
        if (d.id.equals(name)) {
          return d;
        }
      }
      throw new IllegalArgumentException(
          "unknown --dist " + name + " (default, far, dup90 or dup33)");
    }
  }

  /**
   * The key numbers of the records in input order: the same sequence for the generator and for the
   * checker that needs to know where each key first occurred.
   */
  static final class Keys {
    private final Dist dist;
    private final long newUntil;
    private final SplittableRandom rnd = new SplittableRandom(20261202L);
    private long distinct;
    private boolean lastNew;

    Keys(Dist dist, long records) {
      this.dist = dist;
      this.newUntil = records * (100 - DUPLICATE_PERCENT) / 100;
    }

    /** The key number of record {@code r} (records are asked for in order 0, 1, 2, ...). */
    long next(long r) {
      lastNew =
          distinct == 0
              || switch (dist) {
                case DEFAULT -> rnd.nextInt(100) >= DUPLICATE_PERCENT;
                case DUP90 -> rnd.nextInt(100) >= 90;
                case DUP33 -> rnd.nextInt(3) != 0;
                case FAR -> r < newUntil;
              };
      if (lastNew) {
        return distinct++;
      }
      if (dist == Dist.FAR) {
        return rnd.nextLong(distinct);
      }
      return switch (rnd.nextInt(3)) {
        case 0 -> rnd.nextLong(Math.min(distinct, 1000));
        case 1 -> distinct - 1 - rnd.nextLong(Math.min(distinct, 1000));
        default -> rnd.nextLong(distinct);
      };
    }

    /** Whether the last key returned was new. */
    boolean lastNew() {
      return lastNew;
    }

    long distinct() {
      return distinct;
    }
  }

  private E2eData() {}

  /**
   * Writes {@code records} records to {@code file}; {@code killFractions} are the points (fractions
   * of the records) at which the reference output's size is noted.
   */
  static Facts generate(Shape shape, long records, Path file, double... killFractions)
      throws IOException {
    return generate(shape, Dist.DEFAULT, records, file, killFractions);
  }

  /**
   * As {@link #generate(Shape, long, Path, double...)}, with the duplicates spread by {@code dist}.
   */
  static Facts generate(Shape shape, Dist dist, long records, Path file, double... killFractions)
      throws IOException {
    long[] kills = new long[killFractions.length];
    long[] bytesAtKill = new long[killFractions.length];
    for (int i = 0; i < kills.length; i++) {
      kills[i] = (long) (records * killFractions[i]);
    }
    Keys keys = new Keys(dist, records);
    long inBytes = 0;
    long outBytes = 0;
    byte[] line = new byte[256];
    int k = 0;
    try (OutputStream out = new BufferedOutputStream(Files.newOutputStream(file), 1 << 20)) {
      for (long r = 0; r < records; r++) {
        while (k < kills.length && kills[k] == r) {
          bytesAtKill[k++] = outBytes;
        }
        int len = line(shape, line, keys.next(r), r);
        out.write(line, 0, len);
        inBytes += len;
        if (keys.lastNew()) {
          outBytes += len;
        }
      }
    }
    while (k < kills.length) {
      bytesAtKill[k++] = outBytes;
    }
    return new Facts(records, keys.distinct(), inBytes, outBytes, kills, bytesAtKill);
  }

  /**
   * The record number of each key's first occurrence (the {@code seq} of a JSONL record), by key
   * number: replays the generator without writing. 4 bytes a distinct key.
   */
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

  /** Writes record {@code seq} with key number {@code c} (newline included); returns its length. */
  static int line(Shape shape, byte[] b, long c, long seq) {
    return shape == Shape.JSONL ? jsonl(b, c, seq) : url(b, c);
  }

  // Only the key part of a repeated record is the same: the rest (seq) differs, as in real data,
  // so whole-record tools could not dedup JSONL; for URL lines the whole line repeats.
  private static int jsonl(byte[] b, long c, long seq) {
    int p = put(b, 0, "{\"id\":\"");
    p = hex(b, p, encode(c));
    p = put(b, p, "\",\"seq\":");
    p = put(b, p, Long.toString(seq));
    p = put(b, p, ",\"body\":\"lorem ipsum dolor sit amet\"}\n");
    return p;
  }

  private static int url(byte[] b, long c) {
    long x = encode(c);
    int p = put(b, 0, "https://www.example-");
    p = put(b, p, Long.toString(100 + Long.remainderUnsigned(x, 900)));
    p = put(b, p, ".com/item/");
    p = hex(b, p, x);
    p = put(b, p, "?ref=");
    p = put(b, p, Long.toString(Long.remainderUnsigned(x >>> 7, 1000)));
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

  /** An invertible mix of the key number: multiply by odd constants, xor-shift by half. */
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
    int end = off + len - shape.marker.length - 16;
    outer:
    for (int i = off; i <= end; i++) {
      for (int j = 0; j < shape.marker.length; j++) {
        if (b[i + j] != shape.marker[j]) {
          continue outer;
        }
      }
      long x = 0;
      for (int j = i + shape.marker.length, e = j + 16; j < e; j++) {
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

  /** Inverse of an odd number modulo 2^64 (Newton's iteration doubles the correct bits). */
  private static long inverse(long k) {
    long inv = k;
    for (int i = 0; i < 6; i++) {
      inv *= 2 - k * inv;
    }
    return inv;
  }
}
