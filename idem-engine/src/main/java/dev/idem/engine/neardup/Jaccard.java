package dev.idem.engine.neardup;

/** Jaccard similarity |A ∩ B| / |A ∪ B|: exactly on shingle sets, or estimated from signatures. */
final class Jaccard {

  private Jaccard() {}

  /**
   * The exact similarity of two sets given as sorted arrays without repeats (as {@link
   * Shingler#shingles} returns them), by one merge. Two empty sets are defined to be 0: a document
   * with no shingle is like nothing.
   */
  static double exact(long[] a, long[] b) {
    if (a.length == 0 || b.length == 0) {
      return 0;
    }
    int i = 0;
    int j = 0;
    int common = 0;
    while (i < a.length && j < b.length) {
      if (a[i] == b[j]) {
        common++;
        i++;
        j++;
      } else if (a[i] < b[j]) {
        i++;
      } else {
        j++;
      }
    }
    return (double) common / (a.length + b.length - common);
  }

  /**
   * The MinHash estimate: the fraction of the first {@code numPerm} components on which two
   * signatures agree, at {@code a[aFrom..]} and {@code b[bFrom..]} of flat arrays.
   */
  static double estimate(int[] a, int aFrom, int[] b, int bFrom, int numPerm) {
    int equal = 0;
    for (int i = 0; i < numPerm; i++) {
      if (a[aFrom + i] == b[bFrom + i]) {
        equal++;
      }
    }
    return (double) equal / numPerm;
  }
}
