package dev.idem.engine.neardup;

import java.util.List;

/**
 * What a near-duplicate job did.
 *
 * @param records lines read that are records (documents and bad records; not blank lines)
 * @param documents usable records
 * @param kept documents written to the output: the first of each cluster
 * @param exactDuplicates documents removed as byte-for-byte copies of an earlier document's content
 * @param nearDuplicates documents removed as near-duplicates (not exact copies)
 * @param clusters clusters of two or more documents
 * @param candidatePairs document pairs that shared an LSH bucket
 * @param comparedPairs candidate pairs whose similarity was computed
 * @param acceptedPairs compared pairs at or above the threshold
 * @param spilledDocuments documents whose signatures and band entries judging kept on disk, past
 *     {@code --memory} (0 when a resumed job did not judge)
 */
public record NearDupResult(
    long records,
    long documents,
    long kept,
    long exactDuplicates,
    long nearDuplicates,
    long clusters,
    long badRecords,
    long blankLines,
    long candidatePairs,
    long comparedPairs,
    long acceptedPairs,
    long spilledDocuments,
    LshBands bands,
    int numPerm,
    long millis,
    List<String> warnings) {}
