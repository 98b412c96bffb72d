package dev.idem.core.filter;

import dev.idem.core.Fingerprinter;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.function.Supplier;

/**
 * Measures a filter type's real false-positive rate and sets it beside the theory: insert {@code n}
 * generated keys, query {@code n} fresh keys that were never inserted, count the "maybe" answers.
 * Keys are URL-like and sequential ({@code https://example.com/item/<trial>/<i>}), the regular
 * input on which a weak hash was seen to err ten times above theory (1 in 1,000 against 1 in 10,000
 * on 10 M URLs).
 *
 * <p>Every trial uses a fresh filter and a different hash seed; counts are pooled over trials.
 */
public final class FppVerifier {

  private static final byte[] INSERTED =
      "https://example.com/item/".getBytes(StandardCharsets.US_ASCII);
  private static final byte[] FRESH =
      "https://example.com/fresh/".getBytes(StandardCharsets.US_ASCII);

  /** z for a two-sided 95 % interval. */
  static final double Z95 = 1.959963984540054;

  private FppVerifier() {}

  /**
   * The outcome of a verification.
   *
   * @param type the filter type measured
   * @param capacity keys each filter was sized for
   * @param keys keys inserted per trial (and fresh keys queried per trial)
   * @param targetFpp the rate asked for
   * @param bitSize bits of one filter after the inserts
   * @param expectedFpp the type's own formula for its real state after the inserts
   * @param falsePositives "maybe" answers to fresh keys, over all trials
   * @param queries fresh keys queried, over all trials
   * @param layout the last filter's layout parameters
   */
  public record Report(
      FilterType type,
      long capacity,
      long keys,
      double targetFpp,
      long bitSize,
      double expectedFpp,
      long falsePositives,
      long queries,
      Map<String, Object> layout) {

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

    /** Bits per inserted key. */
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
   * Runs {@code trials} trials, each inserting {@code capacity} keys into a filter sized for them
   * and querying as many fresh keys.
   *
   * @param seed the first trial's hash seed; trial {@code t} uses {@code seed + t}
   */
  public static Report verify(FilterType type, long capacity, double fpp, int trials, long seed) {
    return verify(() -> Filters.create(type, capacity, fpp), capacity, fpp, trials, seed);
  }

  /**
   * Runs {@code trials} trials, each inserting {@code keys} keys into a fresh filter from {@code
   * newFilter} (more keys than its capacity exercise a growing filter) and querying {@code keys}
   * fresh keys; {@code fpp} is the target the report compares with.
   *
   * @throws FilterFullException when a fixed-size filter cannot take the keys
   */
  public static Report verify(
      Supplier<? extends MembershipFilter> newFilter,
      long keys,
      double fpp,
      int trials,
      long seed) {
    if (trials < 1) {
      throw new IllegalArgumentException("trials must be at least 1, got " + trials);
    }
    if (keys < 1 || keys > Integer.MAX_VALUE) {
      throw new IllegalArgumentException(
          "verify inserts between 1 and " + Integer.MAX_VALUE + " keys, got " + keys);
    }
    long falsePositives = 0;
    long queries = 0;
    MembershipFilter filter = null;
    KeyWriter key = new KeyWriter();
    double expected = 0;
    for (int t = 0; t < trials; t++) {
      Fingerprinter fp = Fingerprinter.xxh3().withSeed(seed + t);
      filter = newFilter.get();
      for (long i = 0; i < keys; i++) {
        key.set(INSERTED, t, i);
        filter.put(fp.fingerprint(key.bytes, 0, key.length));
      }
      // the Bloom types know their exact load; the others count what they store
      expected +=
          filter instanceof AbstractBloomFilter b
              ? b.falsePositiveRate(keys)
              : filter.expectedFpp();
      for (long i = 0; i < keys; i++) {
        key.set(FRESH, t, i);
        if (filter.mightContain(fp.fingerprint(key.bytes, 0, key.length))) {
          falsePositives++;
        }
        queries++;
      }
    }
    return new Report(
        filter.type(),
        filter.capacity(),
        keys,
        fpp,
        filter.bitSize(),
        expected / trials,
        falsePositives,
        queries,
        filter.layout());
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
