package dev.idem.engine.corpus;

import java.io.IOException;

/**
 * Judges a document's units by the job's rule, in input order: which paragraphs are removed and
 * with what score, or whether the document goes whole. It is the one place the set of what was seen
 * is read and added to, so the first occurrence of a unit is the one that stays.
 */
final class UnitJudge {

  private final CorpusSpec spec;
  private final CorpusTally tally;

  /** What was seen ({@code null} for decontamination, judged by the parser's matches). */
  private final SeenSet seen;

  /** Of the document last judged: its paragraphs removed, each one's score. */
  boolean[] removed = new boolean[64];

  double[] score = new double[64];

  /** Whether any paragraph of it is removed. */
  boolean any;

  /** The score it is removed whole with, or -1 when it is not. */
  double wholeScore;

  UnitJudge(CorpusSpec spec, CorpusTally tally, SeenSet seen) {
    this.spec = spec;
    this.tally = tally;
    this.seen = seen;
  }

  /** Judges {@code d}, counting what it judged; the verdict is in the fields. */
  void judge(ParsedDocument d) throws IOException {
    int n = d.paragraphs;
    if (removed.length < n) {
      removed = new boolean[Math.max(n, 2 * removed.length)];
      score = new double[removed.length];
    }
    java.util.Arrays.fill(removed, 0, n, false);
    tally.paragraphs += n;
    tally.contentChars += d.text.length();
    any = false;
    wholeScore = -1;
    switch (spec.mode()) {
      case PARAGRAPHS -> {
        for (int k = 0; k < n; k++) {
          if (d.judged[k]) {
            tally.judgedParagraphs++;
            if (!seen.add(d.fingerprints[2 * k], d.fingerprints[2 * k + 1])) {
              removed[k] = true;
              score[k] = 1;
              any = true;
            }
          }
        }
        tally.count(1, countJudged(d));
      }
      case NGRAMS -> {
        long docSeen = 0;
        long docGrams = 0;
        for (int k = 0; k < n; k++) {
          if (!d.judged[k]) {
            continue;
          }
          tally.judgedParagraphs++;
          int from = d.gramFrom[k];
          int to = d.gramFrom[k + 1];
          if (to == from) {
            continue; // no token: never removed
          }
          long[] g = d.grams;
          int contained = 0;
          for (int j = from; j < to; j++) {
            if (seen.contains(g[2 * j], g[2 * j + 1])) {
              contained++;
            }
          }
          for (int j = from; j < to; j++) {
            seen.add(g[2 * j], g[2 * j + 1]);
          }
          int total = to - from;
          tally.count(total, 1);
          tally.grams += total;
          tally.seenGrams += contained;
          docSeen += contained;
          docGrams += total;
          double share = (double) contained / total;
          if (share >= spec.threshold()) {
            removed[k] = true;
            score[k] = share;
            any = true;
          }
        }
        if (spec.documentThreshold() > 0 && docGrams > 0) {
          double share = (double) docSeen / docGrams;
          if (share >= spec.documentThreshold()) {
            wholeScore = share;
          }
        }
      }
      case DECONTAMINATE -> {
        boolean whole = spec.unit() == CorpusSpec.Unit.DOCUMENT;
        for (int u = 0; u < d.unitGrams.length; u++) {
          int g = d.unitGrams[u];
          if (g == 0) {
            continue;
          }
          if (!whole) {
            tally.judgedParagraphs++;
          }
          tally.count(g, 1);
          tally.grams += g;
          tally.seenGrams += d.unitMatched[u];
          double share = (double) d.unitMatched[u] / g;
          if (d.unitMatched[u] > 0 && share >= spec.threshold()) {
            if (whole) {
              wholeScore = share;
            } else {
              removed[u] = true;
              score[u] = share;
              any = true;
            }
          }
        }
        if (!whole) {
          for (int k = 0; k < n; k++) {
            if (d.judged[k] && d.unitGrams[k] == 0) {
              tally.judgedParagraphs++;
            }
          }
        }
      }
    }
  }

  private static int countJudged(ParsedDocument d) {
    int c = 0;
    for (int k = 0; k < d.paragraphs; k++) {
      if (d.judged[k]) {
        c++;
      }
    }
    return c;
  }
}
