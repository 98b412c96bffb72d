package dev.idem.engine.corpus;

import dev.idem.engine.run.JobReport;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * How a corpus job went: what it read, removed and kept, and what judged it.
 *
 * @param records lines that were records (blank lines not counted), bad ones included
 * @param documents usable records
 * @param kept documents written, whole or with paragraphs removed
 * @param changed documents written with paragraphs removed (their content field rewritten)
 * @param removedDocuments documents removed whole by a unit rule ({@code --document-threshold}, or
 *     decontamination's document unit)
 * @param shortDocuments documents dropped because what was left of them was shorter than {@code
 *     --min-doc-chars}
 * @param paragraphs paragraphs in all documents
 * @param judgedParagraphs paragraphs judged (not too short, not white space only)
 * @param removedParagraphs paragraphs removed from documents that were kept or dropped as short
 * @param grams n-grams judged (n-gram modes, repeats within a unit included)
 * @param seenGrams of those, the ones already seen (decontamination: found in the evaluation sets)
 * @param contentChars characters (code points) of the documents' content
 * @param removedChars of those, the characters removed (paragraphs, whole documents)
 * @param set how the units were judged, for the summary
 * @param setKeys keys the set holds (a filter: the keys that changed it)
 * @param setBytes bytes the set holds
 * @param fill a filter's measured share of bits set; 0 for an exact set
 * @param expectedRate a filter's false-positive rate worked out from its keys; 0 for an exact set
 * @param unitRateBound the probability that a new unit is removed by false positives alone, at most
 *     (paragraph mode: the rate itself; n-grams: the binomial tail at the threshold, the worst over
 *     unit sizes); 0 for an exact set
 * @param againstGrams decontamination: the n-grams of the evaluation sets (repeats included)
 * @param alreadyDone the state held a finished job: nothing was done
 */
public record CorpusResult(
    long records,
    long documents,
    long blankLines,
    long badRecords,
    long kept,
    long changed,
    long removedDocuments,
    long shortDocuments,
    long paragraphs,
    long judgedParagraphs,
    long removedParagraphs,
    long grams,
    long seenGrams,
    long contentChars,
    long removedChars,
    String set,
    long setKeys,
    long setBytes,
    double fill,
    double expectedRate,
    double unitRateBound,
    long againstGrams,
    boolean alreadyDone,
    long millis,
    List<String> warnings)
    implements JobReport {

  public CorpusResult {
    warnings = List.copyOf(warnings);
  }

  /** The share of the content's characters removed, 0 to 1. */
  public double removedShare() {
    return contentChars == 0 ? 0 : (double) removedChars / contentChars;
  }

  @Override
  public Map<String, Object> report() {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("records", records);
    m.put("documents", documents);
    m.put("kept", kept);
    m.put("changed", changed);
    m.put("removed_documents", removedDocuments);
    m.put("short_documents", shortDocuments);
    m.put("bad_records", badRecords);
    m.put("blank_lines", blankLines);
    m.put("paragraphs", paragraphs);
    m.put("judged_paragraphs", judgedParagraphs);
    m.put("removed_paragraphs", removedParagraphs);
    m.put("ngrams", grams);
    m.put("seen_ngrams", seenGrams);
    m.put("content_chars", contentChars);
    m.put("removed_chars", removedChars);
    m.put("removed_share", removedShare());
    m.put("set", set);
    m.put("set_keys", setKeys);
    m.put("set_bytes", setBytes);
    m.put("fill", fill);
    m.put("expected_fpp", expectedRate);
    m.put("unit_false_removal_bound", unitRateBound);
    m.put("against_ngrams", againstGrams);
    m.put("already_done", alreadyDone);
    m.put("elapsed_ms", millis);
    m.put("warnings", warnings);
    return m;
  }
}
