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
 * hashes (eight bytes each). An exact duplicate costs only its union-find entry. Past the {@link
 * JudgingMemory} budget, a document's signature, shingles and band entries go to the {@link
 * SpillTables} instead; the decisions are the same wherever they are kept.
 */
final class Clustering implements AutoCloseable {

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

  /** The signatures' upper halves, in chunks of whole rows (no copy as they grow). */
  private int[][] chunks = new int[16][];

  private final int rowsPerChunk;
  private final List<long[]> shingleSets = new ArrayList<>();
  private int rows;

  /** Rows from this one on are in the spill tables. */
  private int spilledFromRow = Integer.MAX_VALUE;

  private final JudgingMemory memory;
  private final int[] spilledA;
  private final int[] spilledB;

  /** Per document, the last document it was compared with (+1), so each pair is checked once. */
  private int[] lastChecked = new int[1024];

  private long candidatePairs;
  private long comparedPairs;
  private long acceptedPairs;

  Clustering(MinHasher hasher, LshBands bands, double threshold, boolean verify) {
    this(hasher, bands, threshold, verify, JudgingMemory.unlimited());
  }

  Clustering(
      MinHasher hasher, LshBands bands, double threshold, boolean verify, JudgingMemory memory) {
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
    this.index = new BandIndex(bands, memory);
    this.memory = memory;
    this.threshold = threshold;
    this.verify = verify;
    this.numPerm = hasher.numPerm();
    this.signature = new long[numPerm];
    this.rowsPerChunk = Math.max(1, (1 << 20) / numPerm);
    this.spilledA = new int[numPerm];
    this.spilledB = new int[numPerm];
  }

  MinHasher hasher() {
    return hasher;
  }

  JudgingMemory memory() {
    return memory;
  }

  /** Deletes the spill tables, if any: the judging is over. */
  @Override
  public void close() throws java.io.IOException {
    memory.close();
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
    long bytes =
        4L * numPerm
            + (long) NearDupPlan.BAND_ENTRY * bands.bands()
            + (verify ? 24 + 8L * shingles.length : 0);
    if (r < spilledFromRow && !memory.hold(bytes)) {
      spilledFromRow = r;
      index.spillFrom(doc);
    }
    if (r >= spilledFromRow) {
      upperHalves(signature, spilledA, 0);
      memory.tables().putSignature(r, spilledA);
      if (verify) {
        memory.tables().putShingles(r, shingles);
      }
    } else {
      int c = r / rowsPerChunk;
      if (c == chunks.length) {
        chunks = Arrays.copyOf(chunks, 2 * c);
      }
      if (chunks[c] == null) {
        chunks[c] = new int[rowsPerChunk * numPerm];
      }
      upperHalves(signature, chunks[c], (r % rowsPerChunk) * numPerm);
      if (verify) {
        shingleSets.add(shingles);
      }
    }
    for (int b = 0; b < bands.bands(); b++) {
      long key = index.key(signature, b);
      int found = index.earlier(b, key);
      int[] earlier = index.found();
      for (int f = 0; f < found; f++) {
        int other = earlier[f];
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
    memory.charge(NearDupPlan.fixedBytesPerDocument());
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
    if (verify) {
      return Jaccard.exact(shingles(row[a]), shingles(row[b]));
    }
    int ra = row[a];
    int rb = row[b];
    return Jaccard.estimate(
        signatureArray(ra, spilledA),
        signatureOffset(ra),
        signatureArray(rb, spilledB),
        signatureOffset(rb),
        numPerm);
  }

  private long[] shingles(int r) {
    return r < spilledFromRow ? shingleSets.get(r) : memory.tables().shingles(r);
  }

  /** The array that holds row {@code r}'s signature: its chunk, or {@code spilled} read back. */
  private int[] signatureArray(int r, int[] spilled) {
    if (r < spilledFromRow) {
      return chunks[r / rowsPerChunk];
    }
    memory.tables().signature(r, spilled);
    return spilled;
  }

  private int signatureOffset(int r) {
    return r < spilledFromRow ? (r % rowsPerChunk) * numPerm : 0;
  }

  private void upperHalves(long[] signature, int[] into, int at) {
    for (int i = 0; i < numPerm; i++) {
      into[at + i] = (int) (signature[i] >>> 32);
    }
  }

  /** Documents whose signatures went to the spill tables. */
  long spilledDocuments() {
    return spilledFromRow == Integer.MAX_VALUE ? 0 : rows - spilledFromRow;
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
