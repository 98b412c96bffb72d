package dev.idem.engine.sort;

/**
 * Sorts entries by index, without an object per entry: one most-significant-digit pass spreads the
 * indices into buckets by a 64-bit radix key, then each bucket is sorted by the full order
 * (insertion sort when small, merge sort when not, nothing when already in order).
 *
 * <p>Fingerprints are uniform, so with about one bucket per entry the buckets hold one or two
 * entries and the sort is linear. Keys that share their first bytes (exact keys) land in few
 * buckets and fall back to merge sort: O(n log n) comparisons, never quadratic. Repeats of one key
 * share a bucket in scatter order, which {@code backwards} makes the order wanted, so a hot key's
 * thousands of repeats are checked in one pass rather than sorted.
 */
final class IndexSort {

  /** The entries being sorted. */
  interface Entries {
    /**
     * An unsigned key consistent with {@link #compare}: {@code compare(i, j) < 0} implies {@code
     * radixKey(i) <= radixKey(j)} (unsigned).
     */
    long radixKey(int i);

    /** The full order; ties must not occur between distinct entries that matter to callers. */
    int compare(int i, int j);
  }

  static final int MAX_BUCKET_BITS = 24;
  private static final int INSERTION_MAX = 16;

  private IndexSort() {}

  /** Length of the {@code counts} array {@link #sort} needs for {@code n} entries. */
  static int countsLength(int n) {
    return buckets(n) + 1;
  }

  private static int buckets(int n) {
    return Integer.highestOneBit(Math.max(1, Math.min(n, 1 << MAX_BUCKET_BITS)));
  }

  /**
   * Puts into {@code perm[0, n)} the indices {@code 0..n-1} in ascending order of {@code e}.
   * Entries equal in the full order keep their index order, reversed when {@code backwards}.
   *
   * @param scratch at least {@code n} ints
   * @param counts at least {@link #countsLength countsLength(n)} ints
   */
  static void sort(Entries e, int n, int[] perm, int[] scratch, int[] counts, boolean backwards) {
    if (n == 0) {
      return;
    }
    long min = -1L;
    long max = 0;
    for (int i = 0; i < n; i++) {
      long k = e.radixKey(i);
      if (Long.compareUnsigned(k, min) < 0) {
        min = k;
      }
      if (Long.compareUnsigned(k, max) > 0) {
        max = k;
      }
    }
    int buckets = buckets(n);
    int bits = Integer.numberOfTrailingZeros(buckets);
    // the bucket is the key's top `bits` significant bits above the minimum: order-preserving
    int shift = Math.max(0, 64 - Long.numberOfLeadingZeros(max - min) - bits);
    java.util.Arrays.fill(counts, 0, buckets + 1, 0);
    for (int i = 0; i < n; i++) {
      int b = (int) ((e.radixKey(i) - min) >>> shift);
      scratch[i] = b;
      counts[b + 1]++;
    }
    for (int b = 0; b < buckets; b++) {
      counts[b + 1] += counts[b];
    }
    // counts[b] is now where bucket b starts; advance it while scattering
    if (backwards) {
      for (int i = n - 1; i >= 0; i--) {
        perm[counts[scratch[i]]++] = i;
      }
    } else {
      for (int i = 0; i < n; i++) {
        perm[counts[scratch[i]]++] = i;
      }
    }
    // after scattering counts[b] is where bucket b ends
    int start = 0;
    for (int b = 0; b < buckets; b++) {
      int end = counts[b];
      if (end - start > 1) {
        sortRange(e, perm, scratch, start, end);
      }
      start = end;
    }
  }

  private static void sortRange(Entries e, int[] a, int[] tmp, int lo, int hi) {
    if (hi - lo <= INSERTION_MAX) {
      insertion(e, a, lo, hi);
      return;
    }
    boolean sorted = true;
    for (int i = lo + 1; i < hi && sorted; i++) {
      sorted = e.compare(a[i - 1], a[i]) <= 0;
    }
    if (!sorted) {
      mergeSort(e, a, tmp, lo, hi);
    }
  }

  private static void insertion(Entries e, int[] a, int lo, int hi) {
    for (int i = lo + 1; i < hi; i++) {
      int x = a[i];
      int j = i - 1;
      while (j >= lo && e.compare(a[j], x) > 0) {
        a[j + 1] = a[j];
        j--;
      }
      a[j + 1] = x;
    }
  }

  private static void mergeSort(Entries e, int[] a, int[] tmp, int lo, int hi) {
    if (hi - lo <= INSERTION_MAX) {
      insertion(e, a, lo, hi);
      return;
    }
    int mid = (lo + hi) >>> 1;
    mergeSort(e, a, tmp, lo, mid);
    mergeSort(e, a, tmp, mid, hi);
    if (e.compare(a[mid - 1], a[mid]) <= 0) {
      return;
    }
    System.arraycopy(a, lo, tmp, lo, mid - lo);
    int i = lo;
    int j = mid;
    int k = lo;
    while (i < mid && j < hi) {
      a[k++] = e.compare(a[j], tmp[i]) < 0 ? a[j++] : tmp[i++]; // left first on ties: stable
    }
    while (i < mid) {
      a[k++] = tmp[i++];
    }
  }
}
