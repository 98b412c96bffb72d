package dev.idem.flink;

import java.util.LinkedHashSet;
import java.util.Set;

/**
 * A deterministic test stream of keyed records: record {@code i} is {@code "<key>,<i>"}. About 60 %
 * of records bring a fresh key, 30 % repeat an earlier one (or bring a key no earlier record had),
 * and 10 % are one of 20 hot keys repeated hundreds of times; about 30 % are duplicates.
 * Deterministic, so a replay after a failure or a restore produces the same records.
 */
final class DuplicatedKeys {

  private DuplicatedKeys() {}

  static String record(long i) {
    return keyOf(i) + "," + i;
  }

  static String keyOf(long i) {
    long h = mix(i);
    long r = Math.floorMod(h, 100);
    if (r < 60) {
      return "k" + i;
    }
    if (r < 90) {
      return "k" + Math.floorMod(mix(h), i + 1);
    }
    return "hot" + Math.floorMod(h >>> 8, 20);
  }

  /** The key of a record line. */
  static String keyOfRecord(String record) {
    return record.substring(0, record.indexOf(','));
  }

  /** The distinct keys of records {@code [0, n)}. */
  static Set<String> distinctKeys(long n) {
    Set<String> keys = new LinkedHashSet<>();
    for (long i = 0; i < n; i++) {
      keys.add(keyOf(i));
    }
    return keys;
  }

  private static long mix(long x) {
    long z = x + 0x9E3779B97F4A7C15L;
    z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
    z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
    return z ^ (z >>> 31);
  }
}
