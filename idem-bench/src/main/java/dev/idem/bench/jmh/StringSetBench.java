package dev.idem.bench.jmh;

import java.util.HashSet;
import java.util.Set;

/**
 * {@code HashSet<String>}: the set people write first; each key made a String, as a reader does.
 */
public class StringSetBench extends StructureBench {

  private Set<String> set;

  @Override
  void create(int n) {
    set = new HashSet<>(n * 4 / 3 + 1);
  }

  @Override
  boolean add(Keys keys, int i) {
    return set.add(keys.string(i));
  }

  @Override
  boolean contains(Keys keys, int i) {
    return set.contains(keys.string(i));
  }
}
