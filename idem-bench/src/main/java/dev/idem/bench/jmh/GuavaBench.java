package dev.idem.bench.jmh;

import com.google.common.hash.BloomFilter;
import com.google.common.hash.Funnel;
import com.google.common.hash.PrimitiveSink;

/** Guava's {@code BloomFilter}, which hashes the key bytes itself (Murmur3-128, no copy). */
public class GuavaBench extends StructureBench {

  /** A key as a slice of the arena. */
  static final class Slice {
    byte[] bytes;
    int offset;
    int length;
  }

  enum SliceFunnel implements Funnel<Slice> {
    INSTANCE;

    @Override
    public void funnel(Slice s, PrimitiveSink into) {
      into.putBytes(s.bytes, s.offset, s.length);
    }
  }

  private final Slice slice = new Slice();
  private BloomFilter<Slice> filter;

  @Override
  void create(int n) {
    filter = BloomFilter.create(SliceFunnel.INSTANCE, n, FPP);
  }

  private Slice slice(Keys keys, int i) {
    slice.bytes = keys.array(i);
    slice.offset = keys.offset(i);
    slice.length = keys.length(i);
    return slice;
  }

  @Override
  boolean add(Keys keys, int i) {
    return filter.put(slice(keys, i));
  }

  @Override
  boolean contains(Keys keys, int i) {
    return filter.mightContain(slice(keys, i));
  }
}
