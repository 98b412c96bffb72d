package dev.idem.core.filter;

import dev.idem.core.ByteSize;
import java.util.Locale;

/**
 * Sizing and error formulas for the Bloom filter family. Every filter, the planner and the verifier
 * take their numbers from here, so there is one copy of the math.
 *
 * <p>Classic Bloom filter with {@code n} keys, {@code m} bits and {@code k} positions per key:
 *
 * <ul>
 *   <li>{@code m = ceil(-n·ln p / (ln 2)²)} bits for a target rate {@code p};
 *   <li>{@code k = max(1, round((m/n)·ln 2))};
 *   <li>false-positive rate {@code (1 - e^(-k·n/m))^k}.
 * </ul>
 *
 * <p>A partitioned filter (k slices of {@code s = m/k} bits, one position per slice) has rate
 * {@code (1 - (1 - 1/s)^n)^k}. A blocked filter (all positions of a key inside one 512-bit block)
 * has rate {@code Σ_j P(load = j) · P(hit | j)}: the load of a block is Binomial(n, 1/blocks), and
 * a crowded block answers "maybe" far more often than the average fill suggests, which is why a
 * blocked filter needs more bits than a classic one for the same rate.
 */
public final class FilterMath {

  /** Bits in one block of a {@link BlockedBloomFilter}: one 64-byte cache line. */
  public static final int BLOCK_BITS = 512;

  /** The largest filter idem builds: one Java {@code long[]} of {@code 2^31 - 9} words (16 GiB). */
  public static final long MAX_BITS = (long) (Integer.MAX_VALUE - 8) * Long.SIZE;

  /** The most positions per key any layout uses; beyond it the filter is slower, not better. */
  static final int MAX_HASH_COUNT = 32;

  private static final double LN2 = Math.log(2);
  private static final double LN2_SQUARED = LN2 * LN2;

  private FilterMath() {}

  /** {@code m = ceil(-n·ln p / (ln 2)²)}: the bits a classic Bloom filter needs. */
  public static long optimalBits(long n, double p) {
    checkKeys(n);
    checkFpp(p);
    double m = Math.ceil(-n * Math.log(p) / LN2_SQUARED);
    return checkBits(m, n, p);
  }

  /** {@code k = max(1, round((m/n)·ln 2))}: the positions per key that minimise the rate. */
  public static int optimalHashCount(long n, long m) {
    checkKeys(n);
    checkPositive(m, "bit count");
    return (int) Math.max(1, Math.round((double) m / n * LN2));
  }

  /** Classic rate {@code (1 - e^(-k·n/m))^k}; 0 for an empty filter. */
  public static double falsePositiveRate(long n, long m, int k) {
    checkPositive(m, "bit count");
    checkPositive(k, "hash count");
    if (n <= 0) {
      return 0;
    }
    return Math.pow(-Math.expm1(-(double) k * n / m), k);
  }

  /** The rate of a classic filter of {@code m} bits holding {@code n} keys, with the best k. */
  public static double falsePositiveRate(long n, long m) {
    return falsePositiveRate(n, m, optimalHashCount(n, m));
  }

  /**
   * How many keys a classic filter of {@code m} bits holds at rate {@code p}: {@code floor(m·(ln
   * 2)² / -ln p)}, the inverse of {@link #optimalBits}.
   */
  public static long capacity(long m, double p) {
    checkPositive(m, "bit count");
    checkFpp(p);
    return (long) Math.floor(m * LN2_SQUARED / -Math.log(p));
  }

  /** Partitioned rate {@code (1 - (1 - 1/s)^n)^k} for {@code k} slices of {@code s} bits. */
  public static double partitionedFalsePositiveRate(long n, long sliceBits, int k) {
    checkPositive(sliceBits, "slice size");
    checkPositive(k, "hash count");
    if (n <= 0) {
      return 0;
    }
    double fill = -Math.expm1(n * Math.log1p(-1.0 / sliceBits));
    return Math.pow(fill, k);
  }

  /**
   * Blocked rate: the mixture over block loads {@code Σ_j P(load = j)·P(hit | j)}, where a block's
   * load is Binomial(n, 1/blocks) and {@code P(hit | j)} is the exact chance that all k positions
   * of a fresh key are set in a block holding j keys (see {@link BlockOccupancy}: the fill of a
   * block varies, and the mean-fill shortcut understates the rate). Summed in log space so large
   * loads do not underflow; terms beyond 12 standard deviations above the mean are negligible.
   */
  public static double blockedFalsePositiveRate(long n, long blocks, int k) {
    checkPositive(blocks, "block count");
    checkPositive(k, "hash count");
    if (n <= 0) {
      return 0;
    }
    double lambda = (double) n / blocks;
    int last = (int) Math.min(n, (long) Math.ceil(lambda + 12 * Math.sqrt(lambda) + 50));
    double[] hit = BlockOccupancy.table(k, last + 1);
    if (blocks == 1) {
      return n <= last ? hit[(int) n] : hit[last]; // every key in the one block
    }
    double q = 1.0 / blocks;
    double logOdds = Math.log(q) - Math.log1p(-q);
    double logP = n * Math.log1p(-q); // ln P(load = 0)
    double sum = 0;
    for (int j = 1; j <= last; j++) {
      logP += Math.log((double) (n - j + 1) / j) + logOdds;
      sum += Math.exp(logP) * hit[j];
    }
    return Math.min(1.0, sum);
  }

  /** The classic layout: {@link #optimalBits} and {@link #optimalHashCount}, nothing rounded up. */
  public static FilterLayout classicLayout(long n, double p) {
    long m = optimalBits(n, p);
    int k = optimalHashCount(n, m);
    return new FilterLayout(m, k, falsePositiveRate(n, m, k));
  }

  /**
   * The smallest blocked layout whose own rate is at most {@code p}: for each k, the fewest blocks
   * that reach {@code p} (binary search; the rate falls as blocks are added), then the k with the
   * fewest blocks.
   */
  public static FilterLayout blockedLayout(long n, double p) {
    long classicBits = optimalBits(n, p);
    long bestBlocks = Long.MAX_VALUE;
    int bestK = 0;
    // A blocked filter's best k lies below the classic one (crowded blocks punish extra bits).
    int maxK = Math.min(MAX_HASH_COUNT, optimalHashCount(n, classicBits) + 2);
    for (int k = 1; k <= maxK; k++) {
      long lo = Math.max(1, classicBits / BLOCK_BITS); // blocked never beats classic
      long hi = lo;
      while (blockedFalsePositiveRate(n, hi, k) > p) {
        if (hi >= bestBlocks || hi > MAX_BITS / BLOCK_BITS) {
          hi = -1; // this k cannot beat the best found so far
          break;
        }
        lo = hi + 1;
        hi = hi * 2;
      }
      if (hi < 0) {
        continue;
      }
      while (lo < hi) {
        long mid = lo + (hi - lo) / 2;
        if (blockedFalsePositiveRate(n, mid, k) <= p) {
          hi = mid;
        } else {
          lo = mid + 1;
        }
      }
      if (hi < bestBlocks) {
        bestBlocks = hi;
        bestK = k;
      }
    }
    if (bestK == 0) {
      throw tooLarge(n, p, (double) MAX_BITS + 1);
    }
    long bits = checkBits((double) bestBlocks * BLOCK_BITS, n, p);
    return new FilterLayout(bits, bestK, blockedFalsePositiveRate(n, bestBlocks, bestK));
  }

  /**
   * The smallest partitioned layout whose own rate is at most {@code p}: for each k the slice size
   * solves {@code (1 - (1 - 1/s)^n)^k ≤ p} exactly, then the k with the fewest total bits.
   */
  public static FilterLayout partitionedLayout(long n, double p) {
    checkKeys(n);
    checkFpp(p);
    long bestBits = Long.MAX_VALUE;
    int bestK = 0;
    long bestSlice = 0;
    for (int k = 1; k <= MAX_HASH_COUNT; k++) {
      double fillAllowed = Math.pow(p, 1.0 / k);
      double perKeyMiss = -Math.expm1(Math.log1p(-fillAllowed) / n); // 1 - (1 - f)^(1/n)
      double slice = Math.ceil(1.0 / perKeyMiss);
      if (slice * k > MAX_BITS) {
        continue;
      }
      long s = (long) slice;
      while (partitionedFalsePositiveRate(n, s, k) > p) {
        s++; // guards against rounding in the closed form
      }
      if (s * k < bestBits) {
        bestBits = s * k;
        bestK = k;
        bestSlice = s;
      }
    }
    if (bestK == 0) {
      throw tooLarge(n, p, (double) MAX_BITS + 1);
    }
    return new FilterLayout(bestBits, bestK, partitionedFalsePositiveRate(n, bestSlice, bestK));
  }

  static void checkKeys(long n) {
    if (n <= 0) {
      throw new IllegalArgumentException(
          "the expected number of keys must be positive, got "
              + n
              + "; give the number of distinct keys you plan to insert");
    }
  }

  static void checkFpp(double p) {
    if (!(p > 0 && p < 1)) {
      throw new IllegalArgumentException(
          "the false-positive rate must be between 0 and 1 (exclusive), got "
              + p
              + "; for example 0.001 means 0.1 %");
    }
  }

  private static void checkPositive(long value, String what) {
    if (value <= 0) {
      throw new IllegalArgumentException("the " + what + " must be positive, got " + value);
    }
  }

  private static long checkBits(double m, long n, double p) {
    if (m > MAX_BITS) {
      throw tooLarge(n, p, m);
    }
    return (long) m;
  }

  private static IllegalArgumentException tooLarge(long n, double p, double bits) {
    String needs =
        bits > MAX_BITS
            ? "more than " + ByteSize.format(MAX_BITS / 8)
            : ByteSize.format((long) Math.ceil(bits / 8));
    return new IllegalArgumentException(
        String.format(
            Locale.ROOT,
            "a filter for %,d keys at false-positive rate %s needs %s; one filter holds at most "
                + "%s. Split the keys into shards or accept a higher rate",
            n,
            p,
            needs,
            ByteSize.format(MAX_BITS / 8)));
  }
}
