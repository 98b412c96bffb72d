package dev.idem.core.filter;

import dev.idem.core.ByteSize;
import dev.idem.core.Fingerprint;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * An exact set of 128-bit fingerprints: open addressing with linear probing over one primitive
 * {@code long[]} (slot {@code i} holds {@code hi} at {@code 2i} and {@code lo} at {@code 2i + 1}),
 * so a key costs 16 bytes divided by the load factor and no object. At the default load factor of
 * 0.75 that is 21.3 bytes per key; a {@code HashSet<String>} of URLs costs several times more (see
 * docs/BENCHMARKS.md).
 *
 * <p>The table size need not be a power of two (a fingerprint's home slot is its {@code hi} mapped
 * by multiply-shift), so a set pre-sized for {@code n} keys is exactly {@code n / load} slots. It
 * doubles when full. Removal uses backward-shift deletion: no tombstones, so lookups never slow
 * down after many removals.
 *
 * <p>As a {@link MembershipFilter} it never errs, but for the 2<sup>-128</sup> chance that two keys
 * share a fingerprint. Not thread-safe: it is the single-threaded exact tier and pending set of the
 * engine; wrap it for concurrent use.
 */
public final class FingerprintSet implements MembershipFilter, SnapshotSupport {

  /** The load factor of {@link #withExpectedSize(long)}. */
  public static final double DEFAULT_LOAD_FACTOR = 0.75;

  /** Slots are limited by the largest {@code long[]}: two words each. */
  static final int MAX_SLOTS = (Integer.MAX_VALUE - 8) / 2;

  private final double loadFactor;
  private long[] table;
  private long prefetchSink; // keeps the JIT from dropping prefetch's reads
  private int slots;
  private int growAt;
  private int size;

  /** The fingerprint (0, 0) marks empty slots, so its membership is kept here. */
  private boolean containsZero;

  private FingerprintSet(int slots, double loadFactor) {
    this.loadFactor = loadFactor;
    allocate(slots);
  }

  /** A set that holds {@code expectedKeys} keys at the default load factor before it grows. */
  public static FingerprintSet withExpectedSize(long expectedKeys) {
    return withExpectedSize(expectedKeys, DEFAULT_LOAD_FACTOR);
  }

  /**
   * A set that holds {@code expectedKeys} keys at {@code loadFactor} before it grows.
   *
   * @throws IllegalArgumentException for a load factor outside (0, 0.95] or more keys than one
   *     array can hold (about 800 million at 0.75: use an on-disk exact store beyond that)
   */
  public static FingerprintSet withExpectedSize(long expectedKeys, double loadFactor) {
    if (!(loadFactor > 0 && loadFactor <= 0.95)) {
      throw new IllegalArgumentException(
          "load factor must be in (0, 0.95], got " + loadFactor + "; 0.75 is a good default");
    }
    if (expectedKeys < 0) {
      throw new IllegalArgumentException("expected keys must be >= 0, got " + expectedKeys);
    }
    double slots = slotsFor(expectedKeys, loadFactor);
    if (slots > MAX_SLOTS) {
      throw new IllegalArgumentException(
          "an in-memory fingerprint set holds at most "
              + (long) (MAX_SLOTS * loadFactor)
              + " keys at load "
              + loadFactor
              + ", not "
              + expectedKeys
              + "; use an on-disk exact store (RocksDB) for more");
    }
    return new FingerprintSet((int) slots, loadFactor);
  }

  /**
   * The table bytes of {@link #withExpectedSize(long)} for {@code expectedKeys} keys (16 bytes a
   * slot); the object headers add a few dozen bytes. May exceed what one set can hold.
   */
  public static long bytesFor(long expectedKeys) {
    return 16L * (long) slotsFor(Math.max(0, expectedKeys), DEFAULT_LOAD_FACTOR);
  }

  private static double slotsFor(long expectedKeys, double loadFactor) {
    return Math.ceil(Math.max(expectedKeys, 1) / loadFactor) + 1;
  }

  private void allocate(int slotCount) {
    long bytes = 16L * slotCount;
    try {
      table = new long[2 * slotCount];
    } catch (OutOfMemoryError e) {
      throw new NotEnoughMemoryException(
          "not enough memory for a fingerprint set of "
              + ByteSize.format(bytes)
              + " (JVM heap limit "
              + ByteSize.format(Runtime.getRuntime().maxMemory())
              + "); raise the heap with -Xmx "
              + "(for bin/idem: IDEM_JAVA_OPTS=-Xmx...) or use an on-disk exact store");
    }
    slots = slotCount;
    growAt = (int) Math.min(slotCount - 1L, (long) (slotCount * loadFactor));
  }

  /**
   * A hint that keys {@code from} to {@code to} of {@code fingerprints} (hi, lo pairs) come next:
   * reads their home slots so that a batch's cache misses overlap. Changes nothing.
   */
  @Override
  public void prefetch(long[] fingerprints, int from, int to) {
    long[] t = table;
    long sink = 0;
    for (int i = from; i < to; i++) {
      sink ^= t[2 * home(fingerprints[2 * i])];
    }
    prefetchSink = sink;
  }

  /** Adds the fingerprint; true when it was not in the set. */
  public boolean addIfAbsent(long hi, long lo) {
    if ((hi | lo) == 0) {
      if (containsZero) {
        return false;
      }
      containsZero = true;
      size++;
      return true;
    }
    long[] t = table;
    int i = home(hi);
    while (true) {
      long h = t[2 * i];
      long l = t[2 * i + 1];
      if ((h | l) == 0) {
        break;
      }
      if (h == hi && l == lo) {
        return false;
      }
      i = next(i);
    }
    t[2 * i] = hi;
    t[2 * i + 1] = lo;
    if (++size > growAt) {
      grow();
    }
    return true;
  }

  /** See {@link #addIfAbsent(long, long)}. */
  public boolean addIfAbsent(Fingerprint f) {
    return addIfAbsent(f.hi(), f.lo());
  }

  /** True when the fingerprint is in the set. */
  public boolean contains(long hi, long lo) {
    if ((hi | lo) == 0) {
      return containsZero;
    }
    long[] t = table;
    int i = home(hi);
    while (true) {
      long h = t[2 * i];
      long l = t[2 * i + 1];
      if (h == hi && l == lo) {
        return true;
      }
      if ((h | l) == 0) {
        return false;
      }
      i = next(i);
    }
  }

  /** See {@link #contains(long, long)}. */
  public boolean contains(Fingerprint f) {
    return contains(f.hi(), f.lo());
  }

  /** Removes the fingerprint; true when it was in the set. */
  public boolean remove(long hi, long lo) {
    if ((hi | lo) == 0) {
      if (!containsZero) {
        return false;
      }
      containsZero = false;
      size--;
      return true;
    }
    long[] t = table;
    int i = home(hi);
    while (true) {
      long h = t[2 * i];
      long l = t[2 * i + 1];
      if ((h | l) == 0) {
        return false;
      }
      if (h == hi && l == lo) {
        break;
      }
      i = next(i);
    }
    // Backward shift: pull later entries of the run into the hole when their home allows it.
    int hole = i;
    int j = i;
    while (true) {
      j = next(j);
      long h = t[2 * j];
      long l = t[2 * j + 1];
      if ((h | l) == 0) {
        break;
      }
      int k = home(h);
      boolean homeInsideGap = hole <= j ? (hole < k && k <= j) : (hole < k || k <= j);
      if (!homeInsideGap) {
        t[2 * hole] = h;
        t[2 * hole + 1] = l;
        hole = j;
      }
    }
    t[2 * hole] = 0;
    t[2 * hole + 1] = 0;
    size--;
    return true;
  }

  /** See {@link #remove(long, long)}. */
  public boolean remove(Fingerprint f) {
    return remove(f.hi(), f.lo());
  }

  /** Number of fingerprints in the set. */
  public int size() {
    return size;
  }

  /** Removes everything, keeping the table's size. */
  public void clear() {
    java.util.Arrays.fill(table, 0L);
    size = 0;
    containsZero = false;
  }

  /**
   * Calls {@code action} with every fingerprint in the set, in table order. The set must not change
   * meanwhile.
   */
  public void forEach(FingerprintConsumer action) {
    if (containsZero) {
      action.accept(0, 0);
    }
    long[] t = table;
    for (int i = 0; i < slots; i++) {
      if ((t[2 * i] | t[2 * i + 1]) != 0) {
        action.accept(t[2 * i], t[2 * i + 1]);
      }
    }
  }

  /** Receives fingerprints from {@link #forEach}. */
  @FunctionalInterface
  public interface FingerprintConsumer {
    void accept(long hi, long lo);
  }

  private int home(long hi) {
    return (int) AbstractBloomFilter.reduce(hi, slots);
  }

  private int next(int i) {
    return i + 1 == slots ? 0 : i + 1;
  }

  private void grow() {
    if (slots >= MAX_SLOTS) {
      throw new IllegalStateException(
          "fingerprint set is full at "
              + size
              + " keys (the largest Java array); use an on-disk exact store");
    }
    long[] old = table;
    int oldSlots = slots;
    allocate((int) Math.min(MAX_SLOTS, 2L * oldSlots));
    int kept = size;
    for (int i = 0; i < oldSlots; i++) {
      long h = old[2 * i];
      long l = old[2 * i + 1];
      if ((h | l) != 0) {
        int j = home(h);
        while ((table[2 * j] | table[2 * j + 1]) != 0) {
          j = next(j);
        }
        table[2 * j] = h;
        table[2 * j + 1] = l;
      }
    }
    size = kept;
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

  /** About {@code size / 2^128}: the chance a fresh key shares a fingerprint with a member. */
  @Override
  public double expectedFpp() {
    return size * 0x1p-128;
  }

  @Override
  public long approximateCount() {
    return size;
  }

  @Override
  public long bitSize() {
    return 128L * slots;
  }

  /** Keys held before the table doubles. */
  @Override
  public long capacity() {
    return growAt;
  }

  @Override
  public FilterType type() {
    return FilterType.EXACT;
  }

  @Override
  public Map<String, Object> layout() {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("slots", (long) slots);
    m.put("load_factor", loadFactor);
    m.put("bytes_per_key", size == 0 ? 0.0 : 16.0 * slots / size);
    return m;
  }

  // ---- snapshots

  /*
   * Parameter block (24 bytes): slots u64, load factor f64, contains-zero u32, reserved u32.
   * Payload: the table, 2 words per slot. The header count is the size.
   */
  @Override
  public void writeParameters(ByteBuffer out) {
    out.putLong(slots).putDouble(loadFactor).putInt(containsZero ? 1 : 0).putInt(0);
  }

  @Override
  public List<BitArray> payload() {
    return List.of(HeapBitArray.wrap(table));
  }

  static FingerprintSet restore(ByteBuffer params, long count, Payload payload) throws IOException {
    long slots = params.getLong();
    double loadFactor = params.getDouble();
    int zero = params.getInt();
    int reserved = params.getInt();
    if (slots < 2
        || slots > MAX_SLOTS
        || !(loadFactor > 0 && loadFactor <= 0.95)
        || (zero & ~1) != 0
        || reserved != 0
        || count > slots) {
      throw new IllegalArgumentException(
          "slots=" + slots + ", load=" + loadFactor + ", size=" + count);
    }
    FingerprintSet set = new FingerprintSet((int) slots, loadFactor);
    BitArray words = payload.next(2 * slots);
    long stored = 0;
    for (int i = 0; i < 2 * slots; i += 2) {
      long h = words.word(i);
      long l = words.word(i + 1);
      set.table[i] = h;
      set.table[i + 1] = l;
      stored += (h | l) != 0 ? 1 : 0;
    }
    set.containsZero = zero == 1;
    set.size = (int) count;
    if (stored + zero != count) {
      throw new IllegalArgumentException(
          "the table holds " + (stored + zero) + " fingerprints, the header says " + count);
    }
    return set;
  }
}
