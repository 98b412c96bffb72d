package dev.idem.core.filter;

import java.util.concurrent.ConcurrentHashMap;

/**
 * The exact chance that a query for a key never inserted finds all its {@code k} positions set in a
 * 512-bit block that holds {@code j} keys: {@code E[(X/512)^k]}, where {@code X} is the number of
 * distinct bits set by {@code j·k} uniform positions.
 *
 * <p>The textbook shortcut {@code (1 - (1 - 1/512)^(k·j))^k} replaces {@code X} by its mean. In a
 * block that small {@code X} varies enough that the shortcut understates the rate by about 2 % at a
 * 0.1 % target (measured: 0.1022 % against 0.1000 % predicted), and a filter sized by it misses the
 * target. So we track the whole distribution of {@code X} (a Markov chain: each position lands on a
 * set bit with probability {@code x/512}) and take the moment exactly.
 *
 * <p>The table for one {@code k} depends on nothing else, so it is computed once and cached.
 */
final class BlockOccupancy {

  private static final int BITS = FilterMath.BLOCK_BITS;
  private static final ConcurrentHashMap<Integer, double[]> TABLES = new ConcurrentHashMap<>();

  private BlockOccupancy() {}

  /** {@code t[j]} = probability all k query positions are set when the block holds j keys. */
  static double[] table(int k, int minLength) {
    double[] t = TABLES.get(k);
    if (t != null && t.length >= minLength) {
      return t;
    }
    return TABLES.compute(
        k,
        (key, old) ->
            old != null && old.length >= minLength
                ? old
                : compute(k, Math.max(minLength, old == null ? 256 : 2 * old.length)));
  }

  private static double[] compute(int k, int length) {
    double[] table = new double[length];
    double[] setBits = new double[BITS + 1]; // distribution of the number of set bits
    setBits[0] = 1;
    int reachable = 0;
    double[] allHit = new double[BITS + 1];
    for (int x = 0; x <= BITS; x++) {
      allHit[x] = Math.pow((double) x / BITS, k);
    }
    for (int j = 1; j < length; j++) {
      for (int throwIndex = 0; throwIndex < k; throwIndex++) {
        int top = Math.min(reachable + 1, BITS);
        for (int x = top; x >= 1; x--) {
          setBits[x] = setBits[x] * x / BITS + setBits[x - 1] * (BITS - x + 1) / BITS;
        }
        setBits[0] = 0;
        reachable = top;
      }
      double p = 0;
      for (int x = 0; x <= reachable; x++) {
        p += setBits[x] * allHit[x];
      }
      table[j] = p;
    }
    return table;
  }
}
