package dev.idem.core.filter;

import dev.idem.core.Fingerprint;
import java.util.Map;

/**
 * Approximate set membership over {@link Fingerprint}s.
 *
 * <p>The invariant every implementation keeps: <b>no false negatives</b>. Once {@code put(f)} has
 * returned, {@code mightContain(f)} is true forever. A key never put may still be reported as
 * present, with probability about {@link #expectedFpp()}.
 *
 * <p>Thread safety is stated by each implementation: the Bloom filters are lock-free for concurrent
 * {@code put} and {@code mightContain}; the counting and cuckoo filters take a lock; {@link
 * FingerprintSet} is for one thread.
 */
public interface MembershipFilter {

  /**
   * Adds a key. Returns true when the filter changed, which means the key was certainly not in it
   * before; false means it may have been (a duplicate, or a false positive).
   */
  boolean put(long hi, long lo);

  /** True when the key may have been put; false when it certainly was not. */
  boolean mightContain(long hi, long lo);

  /** See {@link #put(long, long)}. */
  default boolean put(Fingerprint fingerprint) {
    return put(fingerprint.hi(), fingerprint.lo());
  }

  /** See {@link #mightContain(long, long)}. */
  default boolean mightContain(Fingerprint fingerprint) {
    return mightContain(fingerprint.hi(), fingerprint.lo());
  }

  /**
   * Puts fingerprints {@code from} (inclusive) to {@code to} (exclusive), fingerprint {@code i}
   * stored as {@code fingerprints[2i]} (hi) and {@code fingerprints[2i + 1]} (lo); {@code
   * changed[i]} receives what {@link #put(long, long)} would return. The Bloom filters overlap the
   * memory accesses of the batch; a few hundred keys per call work best.
   */
  default void putAll(long[] fingerprints, int from, int to, boolean[] changed) {
    for (int i = from; i < to; i++) {
      changed[i] = put(fingerprints[2 * i], fingerprints[2 * i + 1]);
    }
  }

  /**
   * Keys to {@link #prefetch} together: enough cache misses in flight for the memory system, few
   * enough that the lines are still cached when their keys come. Picked from ad-hoc trials of 4 to
   * 256 on 8 M whole lines, not from a committed benchmark.
   */
  int PREFETCH_CHUNK = 16;

  /**
   * A hint that keys {@code from} to {@code to} (same layout as {@link #putAll}) come next: reads
   * the memory they map to, so that a batch's cache misses are in flight together instead of one
   * after another. Changes nothing; the default does nothing.
   */
  default void prefetch(long[] fingerprints, int from, int to) {}

  /** Batch form of {@link #mightContain(long, long)}, same layout as {@link #putAll}. */
  default void mightContainAll(long[] fingerprints, int from, int to, boolean[] results) {
    for (int i = from; i < to; i++) {
      results[i] = mightContain(fingerprints[2 * i], fingerprints[2 * i + 1]);
    }
  }

  /**
   * The probability that a key never put is reported present, given the keys inserted so far, from
   * this filter type's own formula for its real layout.
   */
  double expectedFpp();

  /**
   * The number of puts that changed the filter. Distinct keys that arrived as false positives are
   * not counted, so this undercounts the distinct keys put by about the false-positive rate.
   */
  long approximateCount();

  /** Bits of payload (memory is this, rounded up to whole 64-bit words). */
  long bitSize();

  /**
   * The number of keys this filter was sized for: its {@link #expectedFpp()} holds up to here. For
   * a growing filter, the capacity of the layers it has now.
   */
  long capacity();

  /** Which kind of filter this is. */
  FilterType type();

  /**
   * The type's own layout parameters by name (e.g. {@code hash_count}, {@code fingerprint_bits},
   * {@code layers}), in a stable order, for reports such as {@code idem filter stats}.
   */
  Map<String, Object> layout();
}
