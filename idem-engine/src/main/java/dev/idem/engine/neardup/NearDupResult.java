package dev.idem.engine.neardup;

import dev.idem.engine.run.JobReport;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

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
    double threshold,
    boolean verify,
    long millis,
    List<String> warnings)
    implements JobReport {

  @Override
  public Map<String, Object> report() {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("records", records);
    m.put("documents", documents);
    m.put("kept", kept);
    m.put("exact_duplicates", exactDuplicates);
    m.put("near_duplicates", nearDuplicates);
    m.put("clusters", clusters);
    m.put("bad_records", badRecords);
    m.put("blank_lines", blankLines);
    m.put("threshold", threshold);
    m.put("num_perm", numPerm);
    m.put("bands", bands.bands());
    m.put("rows", bands.rows());
    m.put("s_curve_half_point", bands.halfPoint());
    m.put("verify", verify);
    m.put("candidate_pairs", candidatePairs);
    m.put("compared_pairs", comparedPairs);
    m.put("accepted_pairs", acceptedPairs);
    m.put("spilled_documents", spilledDocuments);
    m.put("elapsed_ms", millis);
    m.put("warnings", warnings);
    return m;
  }
}
