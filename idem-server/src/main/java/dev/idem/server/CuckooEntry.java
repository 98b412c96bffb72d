package dev.idem.server;

import dev.idem.core.Fingerprint;
import dev.idem.core.Fingerprinter;
import dev.idem.core.filter.CuckooFilter;
import dev.idem.core.filter.FilterFullException;
import java.util.ArrayList;
import java.util.List;

/**
 * A {@code CF.*} key: idem's cuckoo filters, one per layer. A layer that is full gets a next one of
 * {@code capacity × expansion^i} (EXPANSION 0: the filter is full), as RedisBloom grows. Each layer
 * stores 10-bit fingerprints in buckets of 4 slots, at most 1 % false positives when full;
 * BUCKETSIZE keeps RedisBloom's meaning for how many copies of one item a layer holds (2 ×
 * BUCKETSIZE, at most 8).
 */
final class CuckooEntry extends Entry {

  static final String TYPE = "MBbloomCF";

  /** The false-positive rate of each layer at capacity. */
  static final double LAYER_RATE = 0.01;

  /** Layers at most, as RedisBloom's default cf-max-expansions. */
  static final int MAX_LAYERS = 32;

  final long capacity;
  final int bucketSize;
  final int maxIterations;
  final int expansion;
  final List<CuckooFilter> layers;
  private final Fingerprinter fingerprinter;
  private long items;
  private long deletes;

  CuckooEntry(
      long id,
      byte[] name,
      long capacity,
      int bucketSize,
      int maxIterations,
      int expansion,
      List<CuckooFilter> layers,
      long items,
      long deletes,
      Fingerprinter fingerprinter) {
    super(id, name);
    this.capacity = capacity;
    this.bucketSize = bucketSize;
    this.maxIterations = maxIterations;
    this.expansion = expansion;
    this.layers = new ArrayList<>(layers);
    this.items = items;
    this.deletes = deletes;
    this.fingerprinter = fingerprinter;
  }

  static CuckooEntry create(
      long id,
      byte[] name,
      long capacity,
      int bucketSize,
      int maxIterations,
      int expansion,
      Fingerprinter fp) {
    return new CuckooEntry(
        id,
        name,
        capacity,
        bucketSize,
        maxIterations,
        expansion,
        List.of(CuckooFilter.create(capacity, LAYER_RATE)),
        0,
        0,
        fp);
  }

  static long bytesFor(long capacity) {
    return CuckooFilter.bitSizeFor(capacity, CuckooFilter.fingerprintBitsFor(LAYER_RATE)) / 8;
  }

  @Override
  String typeName() {
    return TYPE;
  }

  /** The outcome of one insertion. */
  enum Insert {
    INSERTED,
    EXISTS,
    NO_SPACE
  }

  boolean atMaxLayers() {
    return layers.size() >= MAX_LAYERS;
  }

  /** Adds a copy of the item ({@code nx}: only when it is certainly absent). */
  Insert add(byte[] item, boolean nx) {
    Fingerprint f = fingerprinter.fingerprint(item);
    if (nx && exists(f)) {
      return Insert.EXISTS;
    }
    CuckooFilter newest = layers.get(layers.size() - 1);
    if (tryAdd(newest, f)) {
      return inserted();
    }
    if (expansion == 0 || atMaxLayers()) {
      return Insert.NO_SPACE;
    }
    long next = (long) Math.min(1L << 40, capacity * Math.pow(expansion, layers.size()));
    CuckooFilter layer = CuckooFilter.create(next, LAYER_RATE);
    layers.add(layer);
    return tryAdd(layer, f) ? inserted() : Insert.NO_SPACE;
  }

  private Insert inserted() {
    items++;
    dirty = true;
    return Insert.INSERTED;
  }

  private boolean tryAdd(CuckooFilter layer, Fingerprint f) {
    if (layer.count(f.hi(), f.lo()) >= Math.min(8, 2 * bucketSize)) {
      return false;
    }
    try {
      layer.add(f.hi(), f.lo());
      return true;
    } catch (FilterFullException e) {
      return false;
    }
  }

  boolean exists(byte[] item) {
    return exists(fingerprinter.fingerprint(item));
  }

  private boolean exists(Fingerprint f) {
    for (CuckooFilter layer : layers) {
      if (layer.mightContain(f.hi(), f.lo())) {
        return true;
      }
    }
    return false;
  }

  long count(byte[] item) {
    Fingerprint f = fingerprinter.fingerprint(item);
    long n = 0;
    for (CuckooFilter layer : layers) {
      n += layer.count(f.hi(), f.lo());
    }
    return n;
  }

  /** Removes one copy, from the newest layer that has one. */
  boolean delete(byte[] item) {
    Fingerprint f = fingerprinter.fingerprint(item);
    for (int i = layers.size() - 1; i >= 0; i--) {
      if (layers.get(i).remove(f.hi(), f.lo())) {
        items--;
        deletes++;
        dirty = true;
        return true;
      }
    }
    return false;
  }

  long items() {
    return items;
  }

  long deletes() {
    return deletes;
  }

  long buckets() {
    long n = 0;
    for (CuckooFilter layer : layers) {
      n += layer.bucketCount();
    }
    return n;
  }

  @Override
  long memoryBytes() {
    long bits = 0;
    for (CuckooFilter layer : layers) {
      bits += layer.bitSize();
    }
    return (bits + 7) / 8;
  }
}
