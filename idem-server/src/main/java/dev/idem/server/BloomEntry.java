package dev.idem.server;

import dev.idem.core.Fingerprint;
import dev.idem.core.Fingerprinter;
import dev.idem.core.filter.BlockedBloomFilter;
import dev.idem.core.filter.FilterMath;
import dev.idem.core.filter.MembershipFilter;
import dev.idem.core.filter.ScalableBloomFilter;

/**
 * A {@code BF.*} key: idem's blocked Bloom filter for a NONSCALING one, a scalable filter of
 * blocked layers otherwise, whose compound false-positive rate stays at or below the rate asked for
 * however many layers it grows (each layer's rate is tightened, and the rates sum to at most the
 * one asked).
 */
final class BloomEntry extends Entry {

  static final String TYPE = "MBbloom--";

  /** The layout's growth factor is bounded by idem's scalable filter. */
  static final int MAX_EXPANSION = 16;

  final double errorRate;
  final long initialCapacity;

  /** 0 for a NONSCALING filter. */
  final int expansion;

  final MembershipFilter filter;
  private final Fingerprinter fingerprinter;

  /** The snapshot a BF.SCANDUMP in progress hands out in chunks, or {@code null}. */
  byte[] dump;

  /** Items added that were new to the filter (RedisBloom's "Number of items inserted"). */
  private volatile long items;

  BloomEntry(
      long id,
      byte[] name,
      double errorRate,
      long capacity,
      int expansion,
      MembershipFilter filter,
      long items,
      Fingerprinter fingerprinter) {
    super(id, name);
    this.errorRate = errorRate;
    this.initialCapacity = capacity;
    this.expansion = expansion;
    this.filter = filter;
    this.items = items;
    this.fingerprinter = fingerprinter;
  }

  /** A new, empty filter. */
  static BloomEntry create(
      long id, byte[] name, double errorRate, long capacity, int expansion, Fingerprinter fp) {
    MembershipFilter f =
        expansion == 0
            ? BlockedBloomFilter.create(capacity, errorRate)
            : ScalableBloomFilter.builder()
                .initialCapacity(capacity)
                .falsePositiveRate(errorRate)
                .growth(expansion)
                .build();
    return new BloomEntry(id, name, errorRate, capacity, expansion, f, 0, fp);
  }

  /** The bytes a new filter of these settings takes at first. */
  static long bytesFor(double errorRate, long capacity, int expansion) {
    if (expansion == 0) {
      return FilterMath.blockedLayout(capacity, errorRate).bitSize() / 8;
    }
    return ScalableBloomFilter.builder()
            .initialCapacity(capacity)
            .falsePositiveRate(errorRate)
            .growth(expansion)
            .bitSizeFor(capacity)
        / 8;
  }

  @Override
  String typeName() {
    return TYPE;
  }

  /** 1 when new, 0 when (maybe) there, -2 when new to a full NONSCALING filter. */
  int add(byte[] item) {
    Fingerprint f = fingerprinter.fingerprint(item);
    if (filter.mightContain(f.hi(), f.lo())) {
      return 0;
    }
    if (expansion == 0 && items >= initialCapacity) {
      return -2;
    }
    filter.put(f.hi(), f.lo());
    items++;
    dirty = true;
    return 1;
  }

  /** Whether the next new item makes a scalable filter add a layer. */
  boolean growsOnNextItem() {
    return expansion > 0 && items >= filter.capacity();
  }

  boolean exists(byte[] item) {
    Fingerprint f = fingerprinter.fingerprint(item);
    return filter.mightContain(f.hi(), f.lo());
  }

  long items() {
    return items;
  }

  long capacity() {
    return expansion == 0 ? initialCapacity : filter.capacity();
  }

  int layers() {
    return filter instanceof ScalableBloomFilter s ? s.layerCount() : 1;
  }

  @Override
  long memoryBytes() {
    return (filter.bitSize() + 7) / 8;
  }
}
