package dev.idem.engine.corpus;

/**
 * One record as a parsing thread leaves it for the job's thread: its text, where the text's JSON
 * string lies in the record, its paragraphs, and what each unit is judged by (a fingerprint per
 * paragraph, the n-grams of each paragraph, or what decontamination found); or why the record is
 * bad.
 */
final class ParsedDocument {

  /** Why the record is bad, or {@code null}. */
  String problem;

  /** The content, unescaped. */
  String text;

  /** The content's JSON string in the record: from its opening quote to after its closing one. */
  int valueStart;

  int valueEnd;

  /** The document's id as JSON ({@code --annotate}), or {@code null}. */
  String idJson;

  /** Paragraphs: count, range and span in {@link #text}, whether judged. */
  int paragraphs;

  int[] start;
  int[] end;
  int[] spanEnd;
  boolean[] judged;

  /**
   * {@link CorpusSpec.Mode#PARAGRAPHS}: paragraph p's fingerprint at {@code 2p}, {@code 2p + 1}.
   */
  long[] fingerprints;

  /**
   * {@link CorpusSpec.Mode#NGRAMS}: paragraph p's n-gram fingerprints are {@code grams[2g],
   * grams[2g + 1]} for g in {@code [gramFrom[p], gramFrom[p + 1])}, in text order, repeats
   * included.
   */
  int[] gramFrom;

  long[] grams;

  /**
   * {@link CorpusSpec.Mode#DECONTAMINATE}: per unit (the document, or each paragraph), its n-grams,
   * how many of them the evaluation sets hold, and the span (chars) from the first token of the
   * first one found to the last token of the last one found.
   */
  int[] unitGrams;

  int[] unitMatched;
  int[] matchStart;
  int[] matchEnd;

  /** Whether this is a usable document. */
  boolean ok() {
    return problem == null;
  }
}
