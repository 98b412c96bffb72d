package dev.idem.engine.neardup;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The near-duplicate clusters of documents added in input order. Each new document's signature is
 * banded; every earlier document (kept or not) sharing a band bucket with it is a candidate, and a
 * candidate pair is accepted when its similarity (exact Jaccard of the shingle sets with {@code
 * verify}, else the MinHash estimate) is at least the threshold. Accepted pairs are joined in a
 * {@link UnionFind} whose representative is the least position, so the survivor of each cluster is
 * its first document in input order. Comparing each document with all earlier ones yields every
 * candidate pair exactly once, so the clusters are those of a union-find over all accepted pairs,
 * whatever the order pairs are found in.
 *
 * <p>Memory per document: its signature's upper 32 bits per component (for the estimate; two
 * different minima agree on them with probability 2⁻³², which moves an estimate by nothing
 * measurable), four bytes of chain and a table slot per band, and with {@code verify} its shingle
 * hashes (eight bytes each). An exact duplicate costs only its union-find entry.
 */
final class Clustering {

  private final MinHasher hasher;
  private final LshBands bands;
  private final BandIndex index;
  private final double threshold;
  private final boolean verify;
  private final UnionFind sets = new UnionFind();
  private final long[] signature;
  private final int numPerm;

  /** The signature row of each document, or -1 (an exact duplicate, or no shingle). */
  private int[] row = new int[1024];

  /** For an exact duplicate, the position of its first copy; else -1. */
  private int[] copyOf = new int[1024];

  private int[] signatures = new int[1024];
  private final List<long[]> shingleSets = new ArrayList<>();
  private int rows;

  /** Per document, the last document it was compared with (+1), so each pair is checked once. */
  private int[] lastChecked = new int[1024];

  private long candidatePairs;
  private long comparedPairs;
  private long acceptedPairs;

  Clustering(MinHasher hasher, LshBands bands, double threshold, boolean verify) {
    if (bands.components() > hasher.numPerm()) {
      throw new IllegalArgumentException(
          "--bands × --rows ("
              + bands.bands()
              + " × "
              + bands.rows()
              + " = "
              + bands.components()
              + ") is more than --num-perm "
              + hasher.numPerm());
    }
    this.hasher = hasher;
    this.bands = bands;
    this.index = new BandIndex(bands);
    this.threshold = threshold;
    this.verify = verify;
    this.numPerm = hasher.numPerm();
    this.signature = new long[numPerm];
  }

  MinHasher hasher() {
    return hasher;
  }

  /** Adds a document that is a byte-for-byte copy (same content) of document {@code original}. */
  int addExactDuplicate(int original) {
    int doc = next();
    row[doc] = -1;
    copyOf[doc] = original;
    sets.union(original, doc);
    return doc;
  }

  /** Adds a document by its shingle set; returns its position. */
  int addDocument(long[] shingles) {
    hasher.signature(shingles, signature);
    return addSigned(shingles, signature, 0);
  }

  /**
   * Adds a document by its shingle set and its signature, at {@code source[from..]}, as this
   * clustering's {@link MinHasher} makes it (signed elsewhere, on another thread); returns its
   * position.
   */
  int addSigned(long[] shingles, long[] source, int from) {
    int doc = next();
    copyOf[doc] = -1;
    if (shingles.length == 0) {
      row[doc] = -1; // nothing to compare: it is a cluster of its own
      return doc;
    }
    if (source != signature) {
      System.arraycopy(source, from, signature, 0, numPerm);
    }
    int r = rows++;
    row[doc] = r;
    long needed = (long) (r + 1) * numPerm;
    if (needed > signatures.length) {
      if (needed > Integer.MAX_VALUE - 8) {
        throw new IllegalStateException(
            "more than "
                + r
                + " documents with signatures of "
                + numPerm
                + " components: "
                + "past the 2³¹ components one table holds");
      }
      signatures =
          Arrays.copyOf(
              signatures,
              (int) Math.min(Integer.MAX_VALUE - 8, Math.max(needed, 2L * signatures.length)));
    }
    for (int i = 0; i < numPerm; i++) {
      signatures[r * numPerm + i] = (int) (signature[i] >>> 32);
    }
    if (verify) {
      shingleSets.add(shingles);
    }
    for (int b = 0; b < bands.bands(); b++) {
      long key = index.key(signature, b);
      for (int other = index.first(b, key); other >= 0; other = index.next(other, b)) {
        if (lastChecked[other] == doc + 1) {
          continue;
        }
        lastChecked[other] = doc + 1;
        candidatePairs++;
        if (sets.find(other) == sets.find(doc)) {
          continue; // already one cluster: the pair changes nothing
        }
        comparedPairs++;
        if (similarity(other, doc) >= threshold) {
          acceptedPairs++;
          sets.union(other, doc);
        }
      }
      index.add(doc, b, key);
    }
    return doc;
  }

  private int next() {
    int doc = sets.add();
    if (doc == row.length) {
      row = Arrays.copyOf(row, 2 * doc);
      copyOf = Arrays.copyOf(copyOf, 2 * doc);
      lastChecked = Arrays.copyOf(lastChecked, 2 * doc);
    }
    return doc;
  }

  /** The first document of {@code doc}'s cluster: the one that survives. */
  int survivor(int doc) {
    return sets.find(doc);
  }

  /**
   * The similarity of a document to its cluster's survivor, as the pairs were judged (exact with
   * verify, else estimated): 1 for the survivor and its exact copies. Clusters are transitive, so
   * it may be below the threshold for a document joined through another.
   */
  double similarityToSurvivor(int doc) {
    int first = survivor(doc);
    int d = copyOf[doc] >= 0 ? copyOf[doc] : doc;
    return d == first ? 1 : similarity(first, d);
  }

  private double similarity(int a, int b) {
    return verify
        ? Jaccard.exact(shingleSets.get(row[a]), shingleSets.get(row[b]))
        : Jaccard.estimate(signatures, row[a] * numPerm, signatures, row[b] * numPerm, numPerm);
  }

  int documents() {
    return sets.size();
  }

  /** Pairs that shared a band bucket (each pair counted once). */
  long candidatePairs() {
    return candidatePairs;
  }

  /** Candidate pairs whose similarity was computed (not already in one cluster). */
  long comparedPairs() {
    return comparedPairs;
  }

  /** Compared pairs at or above the threshold, each of which joined two clusters. */
  long acceptedPairs() {
    return acceptedPairs;
  }
}
