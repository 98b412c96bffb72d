package dev.idem.bench;

import dev.idem.core.filter.CountingBloomFilter;
import dev.idem.core.filter.CuckooFilter;
import dev.idem.core.filter.DeletableFilter;
import dev.idem.core.filter.FilterFullException;
import dev.idem.core.filter.FingerprintSet;
import dev.idem.core.filter.MembershipFilter;
import dev.idem.core.filter.ScalableBloomFilter;
import java.util.Locale;

/**
 * idem's structures, fed precomputed XXH3-128 fingerprints: what is timed is the structure alone
 * (idem hashes a key once, and every tier works from that fingerprint).
 */
final class IdemStructures {

  private IdemStructures() {}

  /** Any {@link MembershipFilter}, by put / mightContain. */
  static class Filter extends Structure {
    final MembershipFilter filter;

    Filter(MembershipFilter filter) {
      this.filter = filter;
    }

    @Override
    Input input() {
      return Input.FINGERPRINTS;
    }

    @Override
    boolean insert(StructureKeys k, int j) {
      return filter.put(k.hi(j), k.lo(j));
    }

    @Override
    boolean contains(StructureKeys k, int j) {
      return filter.mightContain(k.hi(j), k.lo(j));
    }

    @Override
    long bits() {
      return filter.bitSize();
    }

    @Override
    double expectedFpp(long n) {
      return filter.expectedFpp();
    }

    @Override
    String expectedSource() {
      return "expectedFpp()";
    }

    @Override
    String notes() {
      if (filter instanceof ScalableBloomFilter s) {
        return String.format(Locale.ROOT, "%d layers, capacity %,d", s.layerCount(), s.capacity());
      }
      return "";
    }
  }

  /**
   * Counting and cuckoo filters. Inserts use put (stored only when "certainly new", as dedup does);
   * the delete benchmark fills with add, since removing a key that put skipped as a false positive
   * could erase another key's copy. A cuckoo insert that finds the filter full is counted, not
   * fatal: how often that happens at the designed load is a result.
   */
  static final class Deletable extends Filter {
    private final DeletableFilter deletable;
    private long refused;

    Deletable(DeletableFilter filter) {
      super(filter);
      this.deletable = filter;
    }

    @Override
    boolean insert(StructureKeys k, int j) {
      try {
        return deletable.put(k.hi(j), k.lo(j));
      } catch (FilterFullException e) {
        refused++;
        return false;
      }
    }

    @Override
    boolean addForDelete(StructureKeys k, int j) {
      try {
        return deletable.add(k.hi(j), k.lo(j));
      } catch (FilterFullException e) {
        refused++;
        return false;
      }
    }

    @Override
    boolean delete(StructureKeys k, int j) {
      return deletable.remove(k.hi(j), k.lo(j));
    }

    long refused() {
      return refused;
    }

    @Override
    String notes() {
      if (deletable instanceof CuckooFilter c) {
        return String.format(
            Locale.ROOT,
            "f = %d bits, load %.4f, stash %s, refused %d",
            c.fingerprintBits(),
            c.load(),
            c.layout().get("stash"),
            refused);
      }
      if (deletable instanceof CountingBloomFilter c) {
        return String.format(
            Locale.ROOT,
            "%d-bit counters, k = %d, saturated %d",
            c.counterBits(),
            c.hashCount(),
            c.saturatedCounters());
      }
      return "";
    }
  }

  /** {@link FingerprintSet}: the exact tier, 128-bit keys. */
  static final class ExactSet extends Structure {
    private final FingerprintSet set;

    ExactSet(FingerprintSet set) {
      this.set = set;
    }

    FingerprintSet set() {
      return set;
    }

    @Override
    Input input() {
      return Input.FINGERPRINTS;
    }

    @Override
    boolean insert(StructureKeys k, int j) {
      return set.addIfAbsent(k.hi(j), k.lo(j));
    }

    @Override
    boolean contains(StructureKeys k, int j) {
      return set.contains(k.hi(j), k.lo(j));
    }

    @Override
    boolean delete(StructureKeys k, int j) {
      return set.remove(k.hi(j), k.lo(j));
    }

    @Override
    long bits() {
      return set.bitSize();
    }

    @Override
    double expectedFpp(long n) {
      return set.expectedFpp();
    }

    @Override
    String expectedSource() {
      return "expectedFpp() (size / 2^128)";
    }

    @Override
    String notes() {
      return "slots "
          + set.layout().get("slots")
          + ", load factor "
          + set.layout().get("load_factor");
    }
  }
}
