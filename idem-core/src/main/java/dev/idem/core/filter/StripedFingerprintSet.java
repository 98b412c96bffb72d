package dev.idem.core.filter;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * An exact set of fingerprints in a fixed number of independent {@link FingerprintSet} stripes,
 * chosen by the top bits of a fingerprint's low word (a stripe places keys by the high word, so the
 * two choices do not correlate).
 *
 * <p>Two keys of different stripes never touch the same memory, which gives two things: threads
 * that each own a disjoint group of stripes add to the set at once without a lock (the dedup job's
 * parallel judges), and the set grows one stripe at a time, so a doubling holds a {@code 1/stripes}
 * share of the keys twice rather than all of them. The stripe count is part of the set, not of how
 * many threads use it: the same keys give the same set, and the same snapshot, for any number of
 * threads.
 *
 * <p>Not thread-safe as a whole: concurrent callers must keep to disjoint stripes ({@link
 * #stripeOf}), and nothing may call the whole-set methods ({@link #size}, {@link #forEach},
 * snapshots) meanwhile.
 */
public final class StripedFingerprintSet implements MembershipFilter, SnapshotSupport {

  /** The stripes of {@link #withExpectedSize}: enough for 64 threads. */
  public static final int DEFAULT_STRIPES = 64;

  /**
   * The most a stripe grows by at once. A stripe holds a {@code 1/stripes} share, so growing in
   * smaller steps than doubling costs little time and leaves less of the table empty.
   */
  static final double STRIPE_GROWTH = 1.5;

  /** The share of {@link #forRecords}'s records the set starts with room for. */
  static final double RECORDS_START_SHARE = 0.5;

  /** Most stripes a snapshot may declare. */
  private static final int MAX_STRIPES = 1 << 9; // 32 bytes each within MAX_PARAMETER_BYTES

  private final FingerprintSet[] stripes;
  private final int shift;
  private long prefetchSink; // keeps the JIT from dropping prefetch's reads

  private StripedFingerprintSet(FingerprintSet[] stripes, long expectedAddsPerStripe) {
    this.stripes = stripes;
    this.shift = 64 - Integer.numberOfTrailingZeros(stripes.length);
    for (FingerprintSet stripe : stripes) {
      stripe.projectGrowth(expectedAddsPerStripe, STRIPE_GROWTH);
    }
  }

  /**
   * A set that holds {@code expectedKeys} keys in {@link #DEFAULT_STRIPES} stripes before any
   * stripe grows (each is sized for its share plus a margin of four standard deviations, so that
   * one grows in about one set of 500).
   */
  public static StripedFingerprintSet withExpectedSize(long expectedKeys) {
    if (expectedKeys < 0) {
      throw new IllegalArgumentException("expected keys must be >= 0, got " + expectedKeys);
    }
    return new StripedFingerprintSet(stripesFor(expectedKeys), 0);
  }

  /**
   * A set for the distinct keys of about {@code records} records, their number not known: room for
   * {@link #RECORDS_START_SHARE} of the records at first, and a stripe that fills grows toward the
   * keys its share of the records would bring at the rate of new keys it has seen so far (by at
   * most {@link #STRIPE_GROWTH} at a time). So the set ends sized by the distinct keys, not by the
   * records: on 2 M records, 0.72× the bytes of {@link #withExpectedSize withExpectedSize(records)}
   * when 30 % of them repeat and 1.03× when none do ({@code StripedFingerprintSetTest}). More
   * records than {@code records} only make stripes grow further.
   */
  public static StripedFingerprintSet forRecords(long records) {
    if (records < 0) {
      throw new IllegalArgumentException("records must be >= 0, got " + records);
    }
    return new StripedFingerprintSet(
        stripesFor((long) Math.ceil(records * RECORDS_START_SHARE)),
        (long) Math.ceil((double) records / DEFAULT_STRIPES));
  }

  private static FingerprintSet[] stripesFor(long keys) {
    FingerprintSet[] s = new FingerprintSet[DEFAULT_STRIPES];
    for (int i = 0; i < s.length; i++) {
      s[i] = FingerprintSet.withExpectedSize(keysPerStripe(keys));
    }
    return s;
  }

  /** A stripe's share of {@code keys} plus a margin of four standard deviations. */
  private static long keysPerStripe(long keys) {
    double share = (double) Math.max(0, keys) / DEFAULT_STRIPES;
    return (long) Math.ceil(share + 4 * Math.sqrt(share) + 1);
  }

  /** The table bytes of {@link #withExpectedSize} for {@code expectedKeys} keys, about. */
  public static long bytesFor(long expectedKeys) {
    return DEFAULT_STRIPES * FingerprintSet.bytesFor(keysPerStripe(expectedKeys));
  }

  /** Number of stripes. */
  public int stripes() {
    return stripes.length;
  }

  /** The stripe that holds fingerprints with low word {@code lo}. */
  public int stripeOf(long lo) {
    return (int) (lo >>> shift);
  }

  /** Adds the fingerprint; true when it was not in the set. Safe alongside other stripes' adds. */
  public boolean addIfAbsent(long hi, long lo) {
    return stripes[stripeOf(lo)].addIfAbsent(hi, lo);
  }

  /** True when the fingerprint is in the set. */
  public boolean contains(long hi, long lo) {
    return stripes[stripeOf(lo)].contains(hi, lo);
  }

  /** Number of fingerprints in the set. */
  public long size() {
    long n = 0;
    for (FingerprintSet s : stripes) {
      n += s.size();
    }
    return n;
  }

  /** Calls {@code action} with every fingerprint, stripe by stripe. The set must not change. */
  public void forEach(FingerprintSet.FingerprintConsumer action) {
    for (FingerprintSet s : stripes) {
      s.forEach(action);
    }
  }

  /**
   * Reads the home slots of keys {@code from} to {@code to} of {@code fingerprints} (hi, lo pairs)
   * so that their cache misses overlap; for keys of any stripe. Changes nothing.
   */
  @Override
  public void prefetch(long[] fingerprints, int from, int to) {
    long sink = 0;
    for (int i = from; i < to; i++) {
      sink ^= stripes[stripeOf(fingerprints[2 * i + 1])].touch(fingerprints[2 * i]);
    }
    prefetchSink = sink;
  }

  // ---- MembershipFilter: an exact answer

  @Override
  public boolean put(long hi, long lo) {
    return addIfAbsent(hi, lo);
  }

  @Override
  public boolean mightContain(long hi, long lo) {
    return contains(hi, lo);
  }

  @Override
  public double expectedFpp() {
    return size() * 0x1p-128;
  }

  @Override
  public long approximateCount() {
    return size();
  }

  @Override
  public long bitSize() {
    long bits = 0;
    for (FingerprintSet s : stripes) {
      bits += s.bitSize();
    }
    return bits;
  }

  /** Keys held before the first stripe grows, about. */
  @Override
  public long capacity() {
    long keys = 0;
    for (FingerprintSet s : stripes) {
      keys += s.capacity();
    }
    return keys;
  }

  @Override
  public FilterType type() {
    return FilterType.EXACT_STRIPED;
  }

  @Override
  public Map<String, Object> layout() {
    Map<String, Object> m = new LinkedHashMap<>();
    long size = size();
    m.put("stripes", stripes.length);
    m.put("slots", bitSize() / 128);
    m.put("bytes_per_key", size == 0 ? 0.0 : bitSize() / 8.0 / size);
    return m;
  }

  // ---- snapshots

  /*
   * Parameter block: stripes u32 (a power of two), reserved u32, then per stripe its size u64 and
   * its own `exact` block (24 bytes). Payload: each stripe's table in stripe order. The header
   * count is the size.
   */
  @Override
  public void writeParameters(ByteBuffer out) {
    out.putInt(stripes.length).putInt(0);
    for (FingerprintSet s : stripes) {
      out.putLong(s.size());
      s.writeParameters(out);
    }
  }

  @Override
  public List<BitArray> payload() {
    List<BitArray> arrays = new ArrayList<>(stripes.length);
    for (FingerprintSet s : stripes) {
      arrays.addAll(s.payload());
    }
    return arrays;
  }

  static StripedFingerprintSet restore(ByteBuffer params, long count, Payload payload)
      throws IOException {
    int n = params.getInt();
    int reserved = params.getInt();
    if (n < 1 || n > MAX_STRIPES || Integer.bitCount(n) != 1 || reserved != 0) {
      throw new IllegalArgumentException("stripes=" + n + ", reserved=" + reserved);
    }
    FingerprintSet[] s = new FingerprintSet[n];
    long total = 0;
    for (int i = 0; i < n; i++) {
      long size = params.getLong();
      s[i] = FingerprintSet.restore(params, size, payload);
      total += size;
    }
    if (total != count) {
      throw new IllegalArgumentException(
          "the stripes hold " + total + " fingerprints, the header says " + count);
    }
    return new StripedFingerprintSet(s, 0);
  }
}
