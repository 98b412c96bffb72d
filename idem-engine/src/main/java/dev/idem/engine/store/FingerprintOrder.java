package dev.idem.engine.store;

/**
 * The order of a checkpoint's pending keys by unsigned fingerprint, without boxing: a stable radix
 * sort of the high words (8 passes of a byte), then the rare runs of equal high words put in order
 * of their low words. A comparator over boxed indexes took a fifth of a Parquet job's time.
 */
final class FingerprintOrder {

  private FingerprintOrder() {}

  /** Indexes of {@code pending} in unsigned (hi, lo) order. */
  static int[] of(PendingKeys pending) {
    int n = pending.size();
    long[] keys = new long[n];
    int[] order = new int[n];
    for (int i = 0; i < n; i++) {
      keys[i] = pending.hi(i);
      order[i] = i;
    }
    long[] keysTmp = new long[n];
    int[] orderTmp = new int[n];
    int[] counts = new int[257];
    for (int shift = 0; shift < 64; shift += 8) {
      java.util.Arrays.fill(counts, 0);
      for (int i = 0; i < n; i++) {
        counts[((int) (keys[i] >>> shift) & 0xff) + 1]++;
      }
      for (int b = 0; b < 256; b++) {
        counts[b + 1] += counts[b];
      }
      for (int i = 0; i < n; i++) {
        int at = counts[(int) (keys[i] >>> shift) & 0xff]++;
        keysTmp[at] = keys[i];
        orderTmp[at] = order[i];
      }
      long[] k = keys;
      keys = keysTmp;
      keysTmp = k;
      int[] o = order;
      order = orderTmp;
      orderTmp = o;
    }
    for (int start = 0; start < n; ) {
      int end = start + 1;
      while (end < n && keys[end] == keys[start]) {
        end++;
      }
      if (end - start > 1) {
        byLow(pending, order, start, end);
      }
      start = end;
    }
    return order;
  }

  /** Insertion sort of {@code order[from, to)} by unsigned low word (the high words are equal). */
  private static void byLow(PendingKeys pending, int[] order, int from, int to) {
    for (int i = from + 1; i < to; i++) {
      int v = order[i];
      int j = i - 1;
      while (j >= from && Long.compareUnsigned(pending.lo(order[j]), pending.lo(v)) > 0) {
        order[j + 1] = order[j];
        j--;
      }
      order[j + 1] = v;
    }
  }
}
