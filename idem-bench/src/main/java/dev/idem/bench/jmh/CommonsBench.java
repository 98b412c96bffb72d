package dev.idem.bench.jmh;

import org.apache.commons.codec.digest.MurmurHash3;
import org.apache.commons.collections4.bloomfilter.EnhancedDoubleHasher;
import org.apache.commons.collections4.bloomfilter.Shape;
import org.apache.commons.collections4.bloomfilter.SimpleBloomFilter;

/**
 * commons-collections4's {@code SimpleBloomFilter} ({@code Shape.fromNP}), fed per key an {@code
 * EnhancedDoubleHasher} of commons-codec's MurmurHash3 x64 128-bit hash, as its docs recommend.
 */
public class CommonsBench extends StructureBench {

  private SimpleBloomFilter filter;

  @Override
  void create(int n) {
    filter = new SimpleBloomFilter(Shape.fromNP(n, FPP));
  }

  private static EnhancedDoubleHasher hasher(Keys keys, int i) {
    long[] h = MurmurHash3.hash128x64(keys.array(i), keys.offset(i), keys.length(i), 0);
    return new EnhancedDoubleHasher(h[0], h[1]);
  }

  @Override
  boolean add(Keys keys, int i) {
    return filter.merge(hasher(keys, i));
  }

  @Override
  boolean contains(Keys keys, int i) {
    return filter.contains(hasher(keys, i));
  }
}
