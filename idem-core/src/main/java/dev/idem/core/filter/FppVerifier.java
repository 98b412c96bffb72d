package dev.idem.core.filter;

import dev.idem.core.Fingerprinter;
import java.nio.charset.StandardCharsets;

/**
 * Measures a filter type's real false-positive rate and sets it beside the theory: insert {@code
 * n} generated keys, query {@code n} fresh keys that were never inserted, count the "maybe"
 * answers. Keys are URL-like and sequential ({@code https://example.com/item/<trial>/<i>}), the
 * regular input on which source article 003 saw a weak hash err ten times above theory.
 *
 * <p>Every trial uses a fresh filter and a different hash seed; counts are pooled over trials.
 */
public final class FppVerifier {

  private static final byte[] INSERTED = "https://example.com/item/".getBytes(StandardCharsets.US_ASCII);
  private static final byte[] FRESH = "https://example.com/fresh/".getBytes(StandardCharsets.US_ASCII);

  /** z for a two-sided 95 % interval. */
  static final double Z95 = 1.959963984540054;

  private FppVerifier() {}

  /**
   * The outcome of a verification.
   *
   * @param type the filter type measured
   * @param keys keys inserted per trial
   * @param targetFpp the rate asked for
   * @param bitSize bits of one filter
   * @param hashCount positions per key
   * @param expectedFpp the type's own formula for its layout with {@code keys} inserted
   * @param falsePositives "maybe" answers to fresh keys, over all trials
   * @param queries fresh keys queried, over all trials
   */
  public record Report(FilterType type, long keys, double targetFpp, long bitSize, int hashCount,
      double expectedFpp, long falsePositives, long queries) {

    /** Measured rate. */
    public double measuredFpp() {
      return (double) falsePositives / queries;
    }

    /** Lower end of the 95 % Wilson interval of the measured rate. */
    public double measuredLow() {
      return wilson(falsePositives, queries, Z95, -1);
    }

    /** Upper end of the 95 % Wilson interval of the measured rate. */
    public double measuredHigh() {
      return wilson(falsePositives, queries, Z95, +1);
    }

    /** Bits per key at the inserted count. */
    public double bitsPerKey() {
      return (double) bitSize / keys;
    }

    /** True when even the interval's lower end is above the target: the filter misses it. */
    public boolean aboveTarget() {
      return measuredLow() > targetFpp;
    }

    /** True when the theory for this layout lies inside the measured interval. */
    public boolean matchesTheory() {
      return measuredLow() <= expectedFpp && expectedFpp <= measuredHigh();
    }
  }

  /**
   * Runs {@code trials} trials of {@code keys} inserts and {@code keys} fresh queries.
   *
   * @param seed the first trial's hash seed; trial {@code t} uses {@code seed + t}
   */
  public static Report verify(FilterType type, long keys, double fpp, int trials, long seed) {
    if (trials < 1) {
      throw new IllegalArgumentException("trials must be at least 1, got " + trials);
    }
    if (keys > Integer.MAX_VALUE) {
      throw new IllegalArgumentException("verify inserts at most " + Integer.MAX_VALUE + " keys");
    }
    long falsePositives = 0;
    long queries = 0;
    AbstractBloomFilter filter = null;
    KeyWriter key = new KeyWriter();
    for (int t = 0; t < trials; t++) {
      Fingerprinter fp = Fingerprinter.xxh3().withSeed(seed + t);
      filter = type.create(keys, fpp);
      for (long i = 0; i < keys; i++) {
        key.set(INSERTED, t, i);
        filter.put(fp.fingerprint(key.bytes, 0, key.length));
      }
      for (long i = 0; i < keys; i++) {
        key.set(FRESH, t, i);
        if (filter.mightContain(fp.fingerprint(key.bytes, 0, key.length))) {
          falsePositives++;
        }
        queries++;
      }
    }
    return new Report(type, keys, fpp, filter.bitSize(), filter.hashCount(),
        filter.falsePositiveRate(keys), falsePositives, queries);
  }

  /** The end, on the side of {@code sign}, of the Wilson score interval for normal quantile z. */
  static double wilson(long successes, long trials, double z, int sign) {
    double n = trials;
    double p = successes / n;
    double z2 = z * z;
    double center = (p + z2 / (2 * n)) / (1 + z2 / n);
    double half = z / (1 + z2 / n) * Math.sqrt(p * (1 - p) / n + z2 / (4 * n * n));
    return Math.max(0, Math.min(1, center + sign * half));
  }

  /** Writes {@code prefix + trial + "/" + i} as ASCII into a reused buffer: no garbage per key. */
  private static final class KeyWriter {
    final byte[] bytes = new byte[128];
    int length;

    void set(byte[] prefix, int trial, long i) {
      System.arraycopy(prefix, 0, bytes, 0, prefix.length);
      length = prefix.length;
      appendDecimal(trial);
      bytes[length++] = '/';
      appendDecimal(i);
    }

    private void appendDecimal(long value) {
      int start = length;
      do {
        bytes[length++] = (byte) ('0' + value % 10);
        value /= 10;
      } while (value > 0);
      for (int a = start, b = length - 1; a < b; a++, b--) {
        byte tmp = bytes[a];
        bytes[a] = bytes[b];
        bytes[b] = tmp;
      }
    }
  }
}
