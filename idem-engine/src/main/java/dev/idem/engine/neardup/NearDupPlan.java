package dev.idem.engine.neardup;

/**
 * What a near-dup job over so many documents will hold in memory, for {@code idem plan}: the bytes
 * per document of each structure the first read keeps, summed. Estimates from the layouts, not
 * measurements: object headers and table slack are taken at their usual sizes on a 64-bit JVM with
 * compressed references.
 *
 * @param documents documents in the input
 * @param wordsPerDocument mean words (tokens) per document, for {@code --verify}'s shingle sets
 * @param bytesPerDocument the estimate for one document
 */
public record NearDupPlan(
    long documents,
    double threshold,
    int numPerm,
    LshBands bands,
    boolean verify,
    double wordsPerDocument,
    long bytesPerDocument) {

  /** Bytes of a document's entry in the exact-duplicate map: key, boxed value, node, table. */
  static final int FINGERPRINT_ENTRY = 32 + 16 + 32 + 8;

  /** A band's bytes per document: the chain link, and a table slot at a load factor of 3/8. */
  static final int BAND_ENTRY = 4 + 32;

  /** Union-find, signature row, copy-of and pair-stamp arrays, grown by doubling. */
  static final int DOCUMENT_ARRAYS = 4 * 4 * 3 / 2;

  /** The judgement: survivor, similarity and cluster size. */
  static final int JUDGEMENT = 12;

  /** Heap a near-dup job keeps for its batches, signing and judgement beside the budget. */
  static final long WORKING_HEAP = 64L << 20;

  /**
   * The bytes of entries judging holds in memory in a heap of {@code heap} bytes ({@code
   * --memory}): three quarters of it, less the working heap, since arrays grow by doubling and the
   * estimates are not measurements. Past it, entries go to disk.
   */
  public static long judgingBudget(long heap) {
    return Math.max(0, heap / 4 * 3 - WORKING_HEAP);
  }

  /** The plan for {@code documents} with these settings. */
  public static NearDupPlan of(
      long documents,
      double threshold,
      int numPerm,
      LshBands bands,
      boolean verify,
      double wordsPerDocument) {
    long bytes =
        4L * numPerm
            + (long) BAND_ENTRY * bands.bands()
            + DOCUMENT_ARRAYS
            + FINGERPRINT_ENTRY
            + JUDGEMENT;
    if (verify) {
      bytes += 16 + 8 + (long) Math.ceil(8 * wordsPerDocument); // a long[] per document
    }
    return new NearDupPlan(documents, threshold, numPerm, bands, verify, wordsPerDocument, bytes);
  }

  /** The whole job's estimate. */
  public long totalBytes() {
    return documents * bytesPerDocument;
  }

  /** Bytes a document keeps in memory even past the budget: its per-document array entries. */
  static long fixedBytesPerDocument() {
    return DOCUMENT_ARRAYS + JUDGEMENT;
  }

  /**
   * How many documents' entries a heap of {@code heap} bytes holds in memory (all of them, when
   * they fit): the others go to disk.
   */
  public long documentsInMemory(long heap) {
    return Math.min(documents, judgingBudget(heap) / bytesPerDocument);
  }

  /** Bytes on disk for the documents past {@code documentsInMemory(heap)}, about. */
  public long spilledBytes(long heap) {
    return (documents - documentsInMemory(heap)) * (bytesPerDocument - fixedBytesPerDocument());
  }
}
