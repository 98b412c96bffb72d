package dev.idem.bench;

import java.util.Arrays;
import java.util.BitSet;

/** The statistics the results page publishes, in one place so that tests can hold them. */
final class Stats {

  private Stats() {}

  /** The median: the middle value, or the mean of the two middle ones; NaN for none. */
  static double median(double... values) {
    if (values.length == 0) {
      return Double.NaN;
    }
    double[] v = values.clone();
    Arrays.sort(v);
    int m = v.length / 2;
    return v.length % 2 == 1 ? v[m] : (v[m - 1] + v[m]) / 2;
  }

  /**
   * How many times faster a run of {@code seconds} is than one of {@code referenceSeconds}: above 1
   * is faster. NaN when either is unknown (not positive).
   */
  static double speedup(double referenceSeconds, double seconds) {
    return referenceSeconds > 0 && seconds > 0 ? referenceSeconds / seconds : Double.NaN;
  }

  /** Precision and recall of what a contender removed against what it should have removed. */
  record PrecisionRecall(long removed, long correct, long truth) {

    static PrecisionRecall of(BitSet removed, BitSet truth) {
      BitSet hit = (BitSet) removed.clone();
      hit.and(truth);
      return new PrecisionRecall(removed.cardinality(), hit.cardinality(), truth.cardinality());
    }

    /** The share of the removed that should have been; 1 when nothing was removed. */
    double precision() {
      return removed == 0 ? 1 : (double) correct / removed;
    }

    /** The share of what should have been removed that was; 1 when nothing should have been. */
    double recall() {
      return truth == 0 ? 1 : (double) correct / truth;
    }
  }

  /**
   * Jaccard similarity of two sorted arrays of distinct values: common over union; 1 for two empty
   * sets. Written here, not taken from idem-engine: the truth must not come from the code it
   * judges.
   */
  static double jaccard(long[] a, long[] b) {
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
    int union = a.length + b.length - common;
    return union == 0 ? 1 : (double) common / union;
  }

  /**
   * Union-find over document positions whose representative is the smallest position, so the first
   * document of each cluster survives and the others are removed: idem near-dup's rule, applied to
   * the truth and to every contender's accepted pairs alike.
   */
  static final class Clusters {
    private final int[] parent;

    Clusters(int documents) {
      parent = new int[documents];
      Arrays.setAll(parent, i -> i);
    }

    int find(int i) {
      while (parent[i] != i) {
        parent[i] = parent[parent[i]];
        i = parent[i];
      }
      return i;
    }

    void union(int a, int b) {
      int ra = find(a);
      int rb = find(b);
      parent[Math.max(ra, rb)] = Math.min(ra, rb);
    }

    /** The documents that are not the first of their cluster. */
    BitSet removed() {
      BitSet removed = new BitSet(parent.length);
      for (int i = 0; i < parent.length; i++) {
        if (find(i) != i) {
          removed.set(i);
        }
      }
      return removed;
    }
  }
}
