package dev.idem.engine.corpus;

import dev.idem.core.ByteSize;
import dev.idem.core.filter.MembershipFilter;
import dev.idem.core.filter.StripedFingerprintSet;
import dev.idem.engine.run.JobReport;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
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

  /**
   * The result of a job that counted {@code tally} and judged with {@code seen} or,
   * decontaminating, {@code against}; neither for a job found finished, which reports its restored
   * counts only.
   */
  static CorpusResult of(
      CorpusSpec spec,
      CorpusTally tally,
      SeenSet seen,
      EvaluationSets.Read against,
      boolean alreadyDone,
      long started,
      List<String> warnings) {
    double rate;
    long setKeys;
    long setBytes;
    double fill;
    String set;
    long againstGrams = against == null ? 0 : against.grams();
    if (seen != null) {
      rate = seen.expectedRate();
      setKeys = seen.size();
      setBytes = seen.bytes();
      fill = seen.fill();
      set = seen.describe();
    } else if (against != null) {
      MembershipFilter grams = against.set();
      rate = grams instanceof StripedFingerprintSet ? 0 : grams.expectedFpp();
      setKeys = grams.approximateCount();
      setBytes = grams.bitSize() / 8;
      fill = 0;
      set =
          String.format(
              Locale.ROOT,
              "%s of the evaluation sets' %,d distinct n-grams (%,d with repeats), %s",
              rate == 0 ? "exact set" : "Bloom filter",
              setKeys,
              againstGrams,
              ByteSize.format(setBytes));
    } else {
      rate = 0;
      setKeys = 0;
      setBytes = 0;
      fill = 0;
      set = "(restored counts only)";
    }
    // the share of a unit's keys that removes it: a paragraph has one key
    double threshold = spec.mode() == CorpusSpec.Mode.PARAGRAPHS ? 1 : spec.threshold();
    return new CorpusResult(
        tally.records,
        tally.documents,
        tally.blankLines,
        tally.badRecords,
        tally.kept,
        tally.changed,
        tally.removedDocuments,
        tally.shortDocuments,
        tally.paragraphs,
        tally.judgedParagraphs,
        tally.removedParagraphs,
        tally.grams,
        tally.seenGrams,
        tally.contentChars,
        tally.removedChars,
        set,
        setKeys,
        setBytes,
        fill,
        rate,
        rate == 0 ? 0 : FalseRemovals.shareBound(tally.unitSizes, rate, threshold),
        againstGrams,
        alreadyDone,
        (System.nanoTime() - started) / 1_000_000,
        warnings);
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
