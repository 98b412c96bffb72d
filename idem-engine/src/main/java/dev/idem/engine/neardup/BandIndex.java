package dev.idem.engine.neardup;

import java.util.Arrays;

/**
 * The LSH band tables: for each band, which earlier documents had the same band key. Each band is
 * an open-addressing table from band key to the latest document with it, and the documents of a key
 * are chained through {@code next}, so a document costs a table slot and four bytes of chain per
 * band, and nothing is allocated per document.
 */
final class BandIndex {

  private static final int NONE = -1;

  private final LshBands bands;
  private final long[][] keys;
  private final int[][] heads;
  private final int[] used;

  /** next[doc * B + band]: the previous document with the same key in that band, or NONE. */
  private int[] next = new int[64];

  BandIndex(LshBands bands) {
    this.bands = bands;
    int b = bands.bands();
    keys = new long[b][];
    heads = new int[b][];
    used = new int[b];
    for (int i = 0; i < b; i++) {
      keys[i] = new long[16];
      heads[i] = new int[16];
      Arrays.fill(heads[i], NONE);
    }
  }

  /**
   * The key of band {@code band} of a full-width signature: its R components folded through the
   * SplitMix64 finalizer, seeded by the band so that equal rows in different bands do not meet. Two
   * different bands collide with probability about 2⁻⁶⁴, which only adds a candidate that the
   * similarity check then refuses.
   */
  long key(long[] signature, int band) {
    int rows = bands.rows();
    long h = MinHasher.mix(band + 0x632BE59BD9B4E019L);
    for (int r = band * rows, end = r + rows; r < end; r++) {
      h = MinHasher.mix(h ^ signature[r]) + 0x9E3779B97F4A7C15L;
    }
    return h;
  }

  /** The most recent document before this one with key {@code key} in {@code band}, or -1. */
  int first(int band, long key) {
    long[] k = keys[band];
    int mask = k.length - 1;
    for (int i = slot(key, mask); ; i = (i + 1) & mask) {
      int head = heads[band][i];
      if (head == NONE) {
        return NONE;
      }
      if (k[i] == key) {
        return head;
      }
    }
  }

  /** The document before {@code doc} with the same key in {@code band}, or -1. */
  int next(int doc, int band) {
    return next[doc * bands.bands() + band];
  }

  /** Files {@code doc} (the newest document) under {@code key} in {@code band}. */
  void add(int doc, int band, long key) {
    int b = bands.bands();
    int at = doc * b + band;
    if (at >= next.length) {
      next = Arrays.copyOf(next, Math.max(at + 1, 2 * next.length));
    }
    if (2 * (used[band] + 1) > keys[band].length) {
      grow(band);
    }
    long[] k = keys[band];
    int[] h = heads[band];
    int mask = k.length - 1;
    int i = slot(key, mask);
    while (h[i] != NONE && k[i] != key) {
      i = (i + 1) & mask;
    }
    if (h[i] == NONE) {
      used[band]++;
      k[i] = key;
    }
    next[at] = h[i];
    h[i] = doc;
  }

  private void grow(int band) {
    long[] oldKeys = keys[band];
    int[] oldHeads = heads[band];
    long[] k = new long[2 * oldKeys.length];
    int[] h = new int[k.length];
    Arrays.fill(h, NONE);
    int mask = k.length - 1;
    for (int j = 0; j < oldKeys.length; j++) {
      if (oldHeads[j] != NONE) {
        int i = slot(oldKeys[j], mask);
        while (h[i] != NONE) {
          i = (i + 1) & mask;
        }
        k[i] = oldKeys[j];
        h[i] = oldHeads[j];
      }
    }
    keys[band] = k;
    heads[band] = h;
  }

  private static int slot(long key, int mask) {
    return (int) (key ^ (key >>> 32)) & mask;
  }
}
