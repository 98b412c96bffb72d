package dev.idem.bench;

import dev.idem.core.filter.CountingBloomFilter;
import dev.idem.core.filter.CuckooFilter;
import dev.idem.core.filter.FingerprintSet;
import dev.idem.core.filter.ScalableBloomFilter;

/**
 * One structure of the structures benchmark, fed key {@code j} of a {@link StructureKeys} in the
 * form it takes. Each fork creates exactly one kind, so every call site stays monomorphic.
 */
abstract class Structure {

  /** Names in table order: idem's structures first, then the anchors. */
  static final String[] NAMES = {
    "scalable", "counting", "cuckoo", "cuckoo8", "cuckoo16", "fingerprint-set",
    "fingerprint-set-lf0.5", "guava", "fastfilter-cuckoo8", "fastfilter-cuckoo16", "hashset-string",
        "longset"
  };

  /** The structures that can delete a key. */
  static final String[] DELETABLE = {
    "counting", "cuckoo", "cuckoo8", "cuckoo16", "fingerprint-set", "hashset-string", "longset"
  };

  /** The exact sets whose retained heap the memory probe measures. */
  static final String[] SETS = {"fingerprint-set", "hashset-string", "longset"};

  /** What a structure is fed: precomputed XXH3-128 fingerprints, key bytes, or Strings. */
  enum Input {
    FINGERPRINTS,
    BYTES,
    STRINGS
  }

  abstract Input input();

  /** Adds key j the way a deduplicating caller would (set semantics); true if it was new. */
  abstract boolean insert(StructureKeys keys, int j);

  abstract boolean contains(StructureKeys keys, int j);

  /** Adds key j so that a later {@link #delete} of it is sound (multiset add for filters). */
  boolean addForDelete(StructureKeys keys, int j) {
    return insert(keys, j);
  }

  boolean delete(StructureKeys keys, int j) {
    throw new UnsupportedOperationException(getClass().getSimpleName() + " cannot delete");
  }

  /** True for structures that are built once from all keys instead of key by key. */
  boolean buildsOnce() {
    return false;
  }

  void build(StructureKeys keys) {
    throw new UnsupportedOperationException();
  }

  /** Bits of the structure's payload by its own account, or -1 when only a heap probe knows. */
  abstract long bits();

  /** The rate the structure (or its library) predicts for a fresh key, with n keys in. */
  abstract double expectedFpp(long n);

  /** Where {@link #expectedFpp} comes from, for the table's footnote. */
  abstract String expectedSource();

  /** Layout facts worth a column (layers, load, refused inserts); empty when none. */
  String notes() {
    return "";
  }

  /** A new, empty structure for n keys at false-positive rate p. */
  static Structure create(String name, int n, double p) {
    return switch (name) {
      case "scalable" ->
          new IdemStructures.Filter(
              ScalableBloomFilter.builder()
                  .initialCapacity(Math.max(1, n / 100))
                  .falsePositiveRate(p)
                  .build());
      case "counting" -> new IdemStructures.Deletable(CountingBloomFilter.create(n, p, 4));
      case "cuckoo" -> new IdemStructures.Deletable(CuckooFilter.create(n, p));
      case "cuckoo8" -> new IdemStructures.Deletable(CuckooFilter.withFingerprintBits(n, 8));
      case "cuckoo16" -> new IdemStructures.Deletable(CuckooFilter.withFingerprintBits(n, 16));
      case "fingerprint-set" -> new IdemStructures.ExactSet(FingerprintSet.withExpectedSize(n));
      // diagnostic: the same set at load 0.5, to separate probe length from slot width
      case "fingerprint-set-lf0.5" ->
          new IdemStructures.ExactSet(FingerprintSet.withExpectedSize(n, 0.5));
      case "guava" -> new AnchorStructures.GuavaBloom(n, p);
      case "fastfilter-cuckoo8" -> new AnchorStructures.FastFilterCuckoo(8);
      case "fastfilter-cuckoo16" -> new AnchorStructures.FastFilterCuckoo(16);
      case "hashset-string" -> new AnchorStructures.StringHashSet(n);
      case "longset" -> new AnchorStructures.LongHashSet(n);
      default -> throw new IllegalArgumentException("unknown structure " + name);
    };
  }
}
