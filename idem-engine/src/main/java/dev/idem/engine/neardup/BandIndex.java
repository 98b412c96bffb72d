package dev.idem.engine.neardup;

import java.util.Arrays;

/**
 * The LSH band tables: for each band, which earlier documents had the same band key. Each band is
 * an open-addressing table from band key to the latest document with it, and the documents of a key
 * are chained through {@code next}, so a document costs a table slot and four bytes of chain per
 * band, and nothing is allocated per document.
 *
 * <p>From the document given to {@link #spillFrom} on, documents are filed in the {@link
 * SpillTables} instead, and the tables in memory stop growing; {@link #earlier} reads both, newest
 * first either way, so where a document is filed never changes what is found or in which order.
 */
final class BandIndex {

  private static final int NONE = -1;

  private final LshBands bands;
  private final long[][] keys;
  private final int[][] heads;
  private final int[] used;

  /** next[doc * B + band]: the previous document with the same key in that band, or NONE. */
  private int[] next = new int[64];

  private final JudgingMemory memory;
  private int spillFrom = Integer.MAX_VALUE;
  private int[] found = new int[16];

  /** The last bucket read from the spill tables, for the {@link #add} that follows. */
  private int lastBand = -1;

  private long lastKey;
  private byte[] lastBucket;

  BandIndex(LshBands bands, JudgingMemory memory) {
    this.bands = bands;
    this.memory = memory;
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

  /** Documents from {@code doc} on are filed in the spill tables. */
  void spillFrom(int doc) {
    spillFrom = Math.min(spillFrom, doc);
  }

  /**
   * The documents filed under {@code key} in {@code band}, newest first, into {@link #found};
   * returns how many.
   */
  int earlier(int band, long key) {
    int n = 0;
    if (spillFrom != Integer.MAX_VALUE) {
      byte[] bucket = memory.tables().bucket(band, key);
      lastBand = band;
      lastKey = key;
      lastBucket = bucket;
      if (bucket != null) {
        for (int i = bucket.length / 4 - 1; i >= 0; i--) {
          n = found(n, SpillTables.docAt(bucket, i));
        }
      }
    }
    for (int d = first(band, key); d != NONE; d = next[d * bands.bands() + band]) {
      n = found(n, d);
    }
    return n;
  }

  /** The documents {@link #earlier} found. */
  int[] found() {
    return found;
  }

  private int found(int n, int doc) {
    if (n == found.length) {
      found = Arrays.copyOf(found, 2 * n);
    }
    found[n] = doc;
    return n + 1;
  }

  private int first(int band, long key) {
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

  /** Files {@code doc} (the newest document) under {@code key} in {@code band}. */
  void add(int doc, int band, long key) {
    if (doc >= spillFrom) {
      SpillTables tables = memory.tables();
      byte[] bucket = band == lastBand && key == lastKey ? lastBucket : tables.bucket(band, key);
      tables.addToBucket(band, key, bucket, doc);
      lastBand = -1;
      return;
    }
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
