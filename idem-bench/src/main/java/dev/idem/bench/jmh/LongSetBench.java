package dev.idem.bench.jmh;

import it.unimi.dsi.fastutil.longs.LongOpenHashSet;

/**
 * fastutil's {@code LongOpenHashSet} of the 64-bit hi half of each key's XXH3 fingerprint: half the
 * bits idem's exact set keeps, the yardstick of a primitive open-addressing set.
 */
public class LongSetBench extends StructureBench {

  private final long[] fp = new long[2];
  private LongOpenHashSet set;

  @Override
  void create(int n) {
    set = new LongOpenHashSet(n);
  }

  @Override
  boolean add(Keys keys, int i) {
    keys.fingerprint(i, fp, 0);
    return set.add(fp[0]);
  }

  @Override
  boolean contains(Keys keys, int i) {
    keys.fingerprint(i, fp, 0);
    return set.contains(fp[0]);
  }
}
