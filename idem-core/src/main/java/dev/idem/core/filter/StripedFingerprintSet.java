package dev.idem.core.filter;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
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
 *
 * <p><b>Used in place.</b> A snapshot written with page checksums ({@link
 * FilterSnapshot#writePaged}) and opened with {@link FilterSnapshot#map} gives a <i>layered</i>
 * set, which answers at once however large it is: each stripe's table is probed where it lies in
 * the mapped file (the <i>base</i>), its pages verified as they are first read, and new keys go to
 * a small heap <i>overlay</i> per stripe. Further mapped levels, the <i>deltas</i>, each hold keys
 * added after the base and the deltas before it ({@link #attachDelta}). A key is in the set when
 * any level holds it; a new key goes to the overlay only after the mapped levels said they lack it,
 * so the levels never share a key. Probing three levels costs more than one heap table, so a
 * layered set is brought into the heap a stripe at a time ({@link #promoteNext}), between the
 * caller's batches, until it is an ordinary set again. A snapshot of a layered set writes each
 * stripe merged, one stripe at a time ({@link MergedStripe}).
 *
 * <p>Why it is long: every method of the set (add, contains, prefetch, sizes, snapshot) answers for
 * the heap stripes and for the mapped levels of a layered set together, and the two must agree key
 * for key; apart, each half would need the other's internals.
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

  /** The keys an overlay stripe starts with room for. */
  private static final long OVERLAY_START_KEYS = 4096;

  /** The heap stripes: the whole set, or the overlay of a layered one. */
  private FingerprintSet[] stripes;

  /** The mapped base of a layered set, per stripe, or {@code null}. */
  private MappedTable[] base;

  /** The mapped deltas of a layered set (keys since the base), oldest first, each per stripe. */
  private MappedTable[][] deltas = NO_DELTAS;

  private static final MappedTable[][] NO_DELTAS = new MappedTable[0][];

  /** The stripes of a layered set brought into the heap so far: those before this index. */
  private int promoted;

  private final int shift;
  private long prefetchSink; // keeps the JIT from dropping prefetch's reads

  private StripedFingerprintSet(FingerprintSet[] stripes, long expectedAddsPerStripe) {
    this.stripes = stripes;
    this.shift = 64 - Integer.numberOfTrailingZeros(stripes.length);
    for (FingerprintSet stripe : stripes) {
      stripe.projectGrowth(expectedAddsPerStripe, STRIPE_GROWTH);
    }
  }

  /** A layered set over a mapped base, with empty overlays. */
  private StripedFingerprintSet(MappedTable[] base) {
    this.base = base;
    this.stripes = emptyOverlays(base.length);
    this.shift = 64 - Integer.numberOfTrailingZeros(base.length);
  }

  private static FingerprintSet[] emptyOverlays(int n) {
    FingerprintSet[] s = new FingerprintSet[n];
    for (int i = 0; i < n; i++) {
      s[i] = FingerprintSet.withExpectedSize(OVERLAY_START_KEYS);
    }
    return s;
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

  /**
   * A set of the first {@code count} fingerprints of {@code pairs} (hi, lo pairs), sized for them
   * and filled in the order of their home slots: the keys are first grouped by stripe and by the
   * top bits of their high word (which order a stripe's home buckets), so that each table is
   * written front to back rather than at random. For a set larger than the cache this costs a
   * counting sort instead of a cache miss per key.
   */
  public static StripedFingerprintSet ofKeys(long[] pairs, int count) {
    StripedFingerprintSet set = withExpectedSize(count);
    // about four keys a group: a group's keys land in a few neighbouring buckets
    int binBits =
        Math.max(0, Math.min(12, 63 - Long.numberOfLeadingZeros(Math.max(1, count / 256))));
    int[] next = new int[DEFAULT_STRIPES << binBits];
    for (int i = 0; i < count; i++) {
      next[set.binOf(pairs[2 * i], pairs[2 * i + 1], binBits)]++;
    }
    for (int b = 0, at = 0; b < next.length; b++) {
      int n = next[b];
      next[b] = at;
      at += n;
    }
    long[] sorted = new long[2 * count];
    for (int i = 0; i < count; i++) {
      int j = next[set.binOf(pairs[2 * i], pairs[2 * i + 1], binBits)]++;
      sorted[2 * j] = pairs[2 * i];
      sorted[2 * j + 1] = pairs[2 * i + 1];
    }
    for (int j = 0; j < count; j++) {
      set.addIfAbsent(sorted[2 * j], sorted[2 * j + 1]);
    }
    return set;
  }

  private int binOf(long hi, long lo, int binBits) {
    return (stripeOf(lo) << binBits) | (binBits == 0 ? 0 : (int) (hi >>> (64 - binBits)));
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

  /**
   * Adds the fingerprint; true when it was not in the set. Safe alongside other stripes' adds.
   *
   * @throws SnapshotDamagedException when a mapped page it reads fails its checksum
   */
  public boolean addIfAbsent(long hi, long lo) {
    int s = stripeOf(lo);
    if (base != null && inLevels(s, hi, lo)) {
      return false;
    }
    return stripes[s].addIfAbsent(hi, lo);
  }

  /**
   * Adds a key known to be absent from the mapped levels, to the overlay, without reading the map:
   * how a resume replays the keys journaled after the newest snapshot, which were new when they
   * were kept. A key that the levels do hold would be counted twice, and the next snapshot of the
   * set refuses to be written ({@link IllegalStateException}); for a set that is not {@link
   * #layered}, the same as {@link #addIfAbsent}.
   */
  public boolean restoreKept(long hi, long lo) {
    return stripes[stripeOf(lo)].addIfAbsent(hi, lo);
  }

  /**
   * Gives the overlays room for about {@code keys} more keys before they grow (a resume knows how
   * many it will replay). Only while the overlays are empty; otherwise nothing happens.
   */
  public void reserveOverlay(long keys) {
    if (overlayKeys() != 0 || keys <= 0) {
      return;
    }
    FingerprintSet[] s = new FingerprintSet[stripes.length];
    for (int i = 0; i < s.length; i++) {
      s[i] = FingerprintSet.withExpectedSize(Math.max(OVERLAY_START_KEYS, keysPerStripe(keys)));
    }
    stripes = s;
  }

  /** Whether the mapped levels of stripe {@code s} hold the key (false once it is promoted). */
  private boolean inLevels(int s, long hi, long lo) {
    MappedTable b = base[s];
    if (b == null) {
      return false;
    }
    if (b.contains(hi, lo)) {
      return true;
    }
    for (MappedTable[] d : deltas) {
      if (d[s].contains(hi, lo)) {
        return true;
      }
    }
    return false;
  }

  /**
   * True when the fingerprint is in the set.
   *
   * @throws SnapshotDamagedException when a mapped page it reads fails its checksum
   */
  public boolean contains(long hi, long lo) {
    int s = stripeOf(lo);
    return stripes[s].contains(hi, lo) || (base != null && inLevels(s, hi, lo));
  }

  /** Number of fingerprints in the set. */
  public long size() {
    return baseKeys() + keysSinceBase();
  }

  /** Whether stripes are used in place from a mapped snapshot (see the class comment). */
  public boolean layered() {
    return base != null;
  }

  /** Keys in the mapped base (0 for a set that is not {@link #layered}). */
  public long baseKeys() {
    long n = 0;
    if (base != null) {
      for (MappedTable t : base) {
        n += t == null ? 0 : t.size();
      }
    }
    return n;
  }

  /**
   * Keys added since the mapped base was written: the delta's and the overlay's (all keys for a set
   * that is not {@link #layered}).
   */
  public long keysSinceBase() {
    long n = 0;
    for (FingerprintSet s : stripes) {
      n += s.size();
    }
    for (MappedTable[] d : deltas) {
      for (MappedTable t : d) {
        n += t == null ? 0 : t.size();
      }
    }
    return n;
  }

  /** The delta levels of a layered set (0 for one that is not, or no longer, layered). */
  public int deltaLevels() {
    return deltas.length;
  }

  /**
   * Calls {@code action} with every key in the heap overlays: for a layered set just mapped, the
   * keys added since its newest mapped level; for a set that is not layered, every key.
   */
  public void forEachInOverlay(FingerprintSet.FingerprintConsumer action) {
    for (FingerprintSet s : stripes) {
      s.forEach(action);
    }
  }

  /** Keys in the heap overlay: added since the newest mapped level was written. */
  public long overlayKeys() {
    long n = 0;
    for (FingerprintSet s : stripes) {
      n += s.size();
    }
    return n;
  }

  /** Calls {@code action} with every fingerprint, stripe by stripe. The set must not change. */
  public void forEach(FingerprintSet.FingerprintConsumer action) {
    for (int i = 0; i < stripes.length; i++) {
      if (base != null && base[i] != null) {
        base[i].forEach(action);
        for (MappedTable[] d : deltas) {
          d[i].forEach(action);
        }
      }
      stripes[i].forEach(action);
    }
  }

  /**
   * Brings the next stripe of a layered set into the heap: its mapped levels (pages verified) and
   * its overlay become one heap table, which from then on answers for the stripe alone. Each call
   * takes about a {@code 1/stripes} share of the set's load time, so a caller that promotes a
   * stripe between batches keeps answering while the set comes into the heap. Not alongside any
   * other call on the set.
   *
   * @return whether the set is now wholly in the heap (also when it never was layered)
   * @throws SnapshotDamagedException when a mapped page fails its checksum
   */
  public boolean promoteNext() {
    if (base == null) {
      return true;
    }
    int i = promoted;
    FingerprintSet heap = FingerprintSet.copyOf(base[i]);
    heap.projectGrowth(0, STRIPE_GROWTH);
    for (MappedTable[] d : deltas) {
      d[i].forEach(heap::addIfAbsent);
      d[i] = null;
    }
    stripes[i].forEach(heap::addIfAbsent);
    stripes[i] = heap;
    base[i] = null;
    if (++promoted == stripes.length) {
      base = null;
      deltas = NO_DELTAS;
    }
    return base == null;
  }

  /**
   * On reopening a state: adds {@code delta}, a mapped delta snapshot of this set (keys added after
   * its base and the deltas attached before), as the newest delta level. This set must be a base
   * just mapped, with nothing added.
   *
   * @throws IllegalArgumentException when this set is not such a base or {@code delta} is not
   *     mapped in place with as many stripes
   */
  public void attachDelta(StripedFingerprintSet delta) {
    if (base == null || overlayKeys() != 0 || promoted != 0) {
      throw new IllegalArgumentException("a delta goes on a base just mapped, with nothing added");
    }
    requireMappedCopy(delta, delta.size(), "delta");
    deltas = Arrays.copyOf(deltas, deltas.length + 1);
    deltas[deltas.length - 1] = delta.base;
  }

  private void requireMappedCopy(StripedFingerprintSet written, long keys, String what) {
    if (written.base == null
        || written.deltas.length != 0
        || written.overlayKeys() != 0
        || written.stripes() != stripes()
        || written.size() != keys) {
      throw new IllegalArgumentException(
          "the "
              + what
              + " snapshot holds "
              + written.size()
              + " keys in "
              + written.stripes()
              + " stripes"
              + (written.base == null ? " (not mapped in place)" : "")
              + "; the set has "
              + keys
              + " in "
              + stripes()
              + " for it");
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
      int s = stripeOf(fingerprints[2 * i + 1]);
      long hi = fingerprints[2 * i];
      sink ^= base != null && base[s] != null ? base[s].touch(hi) : stripes[s].touch(hi);
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
    for (int i = 0; i < stripes.length; i++) {
      bits += stripes[i].bitSize();
      if (base != null && base[i] != null) {
        bits += base[i].bitSize();
        for (MappedTable[] d : deltas) {
          bits += d[i].bitSize();
        }
      }
    }
    return bits;
  }

  /** Keys held before the first stripe grows, about (for a layered set: the overlays' room too). */
  @Override
  public long capacity() {
    long keys = baseKeys() + keysSinceBase() - overlayKeys();
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
    if (base != null) {
      m.put("mapped_keys", baseKeys() + keysSinceBase() - overlayKeys());
      m.put("overlay_keys", overlayKeys());
    }
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
    for (int i = 0; i < stripes.length; i++) {
      FingerprintSet s = stripes[i];
      if (base == null || base[i] == null) {
        out.putLong(s.size());
        s.writeParameters(out);
      } else {
        MergedStripe m = merged(i);
        out.putLong(m.size);
        out.putLong(m.wordCount() / 2)
            .putDouble(FingerprintSet.DEFAULT_LOAD_FACTOR)
            .putInt(m.containsZero ? 1 : 0)
            .putInt(FingerprintSet.LAYOUT_BUCKETS);
      }
    }
  }

  @Override
  public List<BitArray> payload() {
    List<BitArray> arrays = new ArrayList<>(stripes.length);
    for (int i = 0; i < stripes.length; i++) {
      if (base == null || base[i] == null) {
        arrays.addAll(stripes[i].payload());
      } else {
        arrays.add(merged(i));
      }
    }
    return arrays;
  }

  private MergedStripe merged(int i) {
    MappedTable[] levels = new MappedTable[1 + deltas.length];
    levels[0] = base[i];
    for (int d = 0; d < deltas.length; d++) {
      levels[1 + d] = deltas[d][i];
    }
    return new MergedStripe(levels, stripes[i]);
  }

  static StripedFingerprintSet restore(ByteBuffer params, long count, Payload payload)
      throws IOException {
    int n = params.getInt();
    int reserved = params.getInt();
    if (n < 1 || n > MAX_STRIPES || Integer.bitCount(n) != 1 || reserved != 0) {
      throw new IllegalArgumentException("stripes=" + n + ", reserved=" + reserved);
    }
    FingerprintSet[] s = new FingerprintSet[n];
    MappedTable[] mapped = payload.inPlace() ? new MappedTable[n] : null;
    long total = 0;
    for (int i = 0; i < n; i++) {
      long size = params.getLong();
      if (mapped != null) {
        mapped[i] = mappedStripe(params, size, payload);
      } else {
        s[i] = FingerprintSet.restore(params, size, payload);
      }
      total += size;
    }
    if (total != count) {
      throw new IllegalArgumentException(
          "the stripes hold " + total + " fingerprints, the header says " + count);
    }
    return mapped != null ? new StripedFingerprintSet(mapped) : new StripedFingerprintSet(s, 0);
  }

  /**
   * Stripe parameters and table, mapped in place: layout 1 only (a snapshot with page checksums was
   * never written with an older one).
   */
  private static MappedTable mappedStripe(ByteBuffer params, long size, Payload payload)
      throws IOException {
    long slots = params.getLong();
    double loadFactor = params.getDouble();
    int zero = params.getInt();
    int layout = params.getInt();
    if (layout != FingerprintSet.LAYOUT_BUCKETS
        || slots < 8
        || slots % FingerprintSet.SLOTS_PER_BUCKET != 0
        || slots > (long) FingerprintSet.MAX_BUCKETS * FingerprintSet.SLOTS_PER_BUCKET
        || !(loadFactor > 0 && loadFactor <= 0.95)
        || (zero & ~1) != 0
        || size < zero
        || size > slots) {
      throw new IllegalArgumentException(
          "slots=" + slots + ", load=" + loadFactor + ", layout=" + layout + ", size=" + size);
    }
    MappedBitArray words = (MappedBitArray) payload.next(2 * slots);
    return new MappedTable(
        words, (int) (slots / FingerprintSet.SLOTS_PER_BUCKET), (int) size, zero == 1, loadFactor);
  }
}
