package dev.idem.bench;

import com.google.common.hash.BloomFilter;
import it.unimi.dsi.fastutil.longs.LongOpenHashSet;
import java.util.HashSet;
import org.fastfilter.Filter;
import org.fastfilter.cuckoo.Cuckoo16;
import org.fastfilter.cuckoo.Cuckoo8;

/** The libraries a user would otherwise reach for, each fed the way it is meant to be used. */
final class AnchorStructures {

  private AnchorStructures() {}

  /** Guava's Bloom filter over the key bytes: it hashes them itself (Murmur3-128). */
  static final class GuavaBloom extends Structure {
    private final BloomFilter<Contender.Slice> filter;
    private final Contender.Slice slice = new Contender.Slice();

    GuavaBloom(int n, double p) {
      filter = BloomFilter.create(Contender.SliceFunnel.INSTANCE, n, p);
    }

    @Override
    Input input() {
      return Input.BYTES;
    }

    private Contender.Slice slice(KeyArena a, int j) {
      int[] offs = a.offsets(j);
      int at = j & KeyArena.CHUNK_MASK;
      return slice.set(a.data(j), offs[at], offs[at + 1] - offs[at]);
    }

    @Override
    boolean insert(StructureKeys k, int j) {
      return filter.put(slice(k.arena, j));
    }

    @Override
    boolean contains(StructureKeys k, int j) {
      return filter.mightContain(slice(k.arena, j));
    }

    @Override
    long bits() {
      return (filter.serializedSize() - 6) * Byte.SIZE; // header: 2 bytes + int word count
    }

    @Override
    double expectedFpp(long n) {
      return filter.expectedFpp();
    }

    @Override
    String expectedSource() {
      return "Guava expectedFpp()";
    }
  }

  /**
   * FastFilter's cuckoo filters: built once, {@code construct(long[])}, from 64-bit keys (here the
   * hi half of each XXH3 fingerprint), which it rehashes with its own random seed. Its {@code
   * Filter} interface says {@code supportsAdd()} and {@code supportsRemove()} are false.
   */
  static final class FastFilterCuckoo extends Structure {
    private final int bits;
    private Filter filter;
    private long[] keys;

    FastFilterCuckoo(int bits) {
      this.bits = bits;
    }

    @Override
    Input input() {
      return Input.FINGERPRINTS;
    }

    @Override
    boolean buildsOnce() {
      return true;
    }

    /** Takes the 64-bit keys from the caller's array; copying them out is not part of a build. */
    void prepare(StructureKeys k) {
      keys = k.hiHalves();
    }

    @Override
    void build(StructureKeys k) {
      if (keys == null) {
        prepare(k);
      }
      filter = bits == 8 ? Cuckoo8.construct(keys) : Cuckoo16.construct(keys);
    }

    @Override
    boolean insert(StructureKeys k, int j) {
      throw new UnsupportedOperationException("FastFilter's cuckoo filters are built once");
    }

    @Override
    boolean contains(StructureKeys k, int j) {
      return filter.mayContain(k.hi(j));
    }

    @Override
    long bits() {
      return filter.getBitCount();
    }

    /**
     * FastFilter has no estimate, so the textbook one at its real load α: a query compares 2b = 8
     * slots, each holding an independent fingerprint (construct stores every key, duplicates of a
     * fingerprint in a bucket pair included), so {@code 1 - (1 - q)^(8α)}, where q is the chance
     * two of its fingerprints match. FastFilter folds hash value 0 into 1, so q = Σ p_v² = (2^f +
     * 2) / 2^(2f), a hair above 1/(2^f - 1). idem's own linear {@code 8α / (2^f - 1)} assumes put's
     * "skip what may be present", which FastFilter does not do.
     */
    @Override
    double expectedFpp(long n) {
      double load = (double) n * bits / filter.getBitCount();
      double q = (Math.pow(2, bits) + 2) / Math.pow(2, 2 * bits);
      return -Math.expm1(8 * load * Math.log1p(-q));
    }

    @Override
    String expectedSource() {
      return "1 - (1 - q)^(8·load), q = (2^f + 2) / 2^(2f), at its real load (FastFilter has none)";
    }

    @Override
    String notes() {
      return String.format(
          java.util.Locale.ROOT,
          "f = %d bits, load %.4f",
          bits,
          (double) keys.length * bits / filter.getBitCount());
    }
  }

  /** The naive baseline: the keys as Strings in a pre-sized {@code HashSet}. */
  static final class StringHashSet extends Structure {
    private final HashSet<String> set;

    StringHashSet(int n) {
      set = new HashSet<>((int) Math.ceil(n / 0.75) + 1);
    }

    @Override
    Input input() {
      return Input.STRINGS;
    }

    @Override
    boolean insert(StructureKeys k, int j) {
      return set.add(k.strings[j]);
    }

    @Override
    boolean contains(StructureKeys k, int j) {
      return set.contains(k.strings[j]);
    }

    @Override
    boolean delete(StructureKeys k, int j) {
      return set.remove(k.strings[j]);
    }

    @Override
    long bits() {
      return -1;
    }

    @Override
    double expectedFpp(long n) {
      return 0;
    }

    @Override
    String expectedSource() {
      return "exact: 0";
    }
  }

  /** fastutil's open-addressing set of primitive longs, holding the hi half of each fingerprint. */
  static final class LongHashSet extends Structure {
    private final LongOpenHashSet set;

    LongHashSet(int n) {
      set = new LongOpenHashSet(n);
    }

    @Override
    Input input() {
      return Input.FINGERPRINTS;
    }

    @Override
    boolean insert(StructureKeys k, int j) {
      return set.add(k.hi(j));
    }

    @Override
    boolean contains(StructureKeys k, int j) {
      return set.contains(k.hi(j));
    }

    @Override
    boolean delete(StructureKeys k, int j) {
      return set.remove(k.hi(j));
    }

    @Override
    long bits() {
      return -1;
    }

    /** A fresh key matches when its 64-bit hash equals a member's: n / 2^64. */
    @Override
    double expectedFpp(long n) {
      return set.size() * 0x1p-64;
    }

    @Override
    String expectedSource() {
      return "size / 2^64 (64-bit keys)";
    }
  }
}
