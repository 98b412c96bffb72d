package dev.idem.engine.corpus;

import java.util.HashMap;
import java.util.Map;

/**
 * What a corpus job counted, as it goes: documents, paragraphs, n-grams and characters read and
 * removed. A checkpoint keeps them ({@link #counts}), a resume starts from them ({@link #restore}).
 */
final class CorpusTally {

  long records;
  long documents;
  long blankLines;
  long badRecords;
  long kept;
  long changed;
  long removedDocuments;
  long shortDocuments;
  long paragraphs;
  long judgedParagraphs;
  long removedParagraphs;
  long grams;
  long seenGrams;
  long contentChars;
  long removedChars;

  /**
   * Units judged by this run, by their n-grams: for the bound on removals by false positives, a
   * share, so a resumed run bounds it over the units it judged itself.
   */
  final Map<Integer, Long> unitSizes = new HashMap<>();

  /** {@code units} more units of {@code grams} n-grams each were judged. */
  void count(int grams, int units) {
    if (units > 0) {
      unitSizes.merge(grams, (long) units, Long::sum);
    }
  }

  CorpusState.Counts counts() {
    return new CorpusState.Counts(
        records,
        documents,
        blankLines,
        badRecords,
        kept,
        changed,
        removedDocuments,
        shortDocuments,
        paragraphs,
        judgedParagraphs,
        removedParagraphs,
        grams,
        seenGrams,
        contentChars,
        removedChars);
  }

  void restore(CorpusState.Counts c) {
    records = c.records();
    documents = c.documents();
    blankLines = c.blankLines();
    badRecords = c.badRecords();
    kept = c.kept();
    changed = c.changed();
    removedDocuments = c.removedDocuments();
    shortDocuments = c.shortDocuments();
    paragraphs = c.paragraphs();
    judgedParagraphs = c.judgedParagraphs();
    removedParagraphs = c.removedParagraphs();
    grams = c.grams();
    seenGrams = c.seenGrams();
    contentChars = c.contentChars();
    removedChars = c.removedChars();
  }
}
