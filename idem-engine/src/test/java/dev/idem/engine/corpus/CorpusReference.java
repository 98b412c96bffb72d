package dev.idem.engine.corpus;

import dev.idem.engine.neardup.TextNormalization;
import dev.idem.engine.neardup.Tokenizer;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * The corpus job's rules written again the slow, obvious way, for the tests to compare with: texts
 * split with {@code String.split}, paragraphs and n-grams kept as strings and lists of strings in
 * hash sets, the first occurrence found by walking the documents in order. Nothing here is shared
 * with the job's code but the public {@link TextNormalization} a token is normalised by.
 */
final class CorpusReference {

  private CorpusReference() {}

  /** A paragraph: its range, and its span (up to the next paragraph, or the end). */
  record Para(int start, int end, int spanEnd) {}

  /** What the reference decides for one document. */
  record Decision(
      boolean[] removed, double[] score, boolean wholeRemoved, double wholeScore, String left) {

    /** Whether the document is written (whole or with paragraphs removed). */
    boolean written(int minDocChars) {
      return !wholeRemoved && !droppedShort(minDocChars);
    }

    boolean droppedShort(int minDocChars) {
      boolean any = false;
      for (boolean r : removed) {
        any |= r;
      }
      String s = left.strip();
      return any && s.codePointCount(0, s.length()) < minDocChars;
    }

    boolean changed() {
      for (boolean r : removed) {
        if (r) {
          return true;
        }
      }
      return false;
    }
  }

  static List<Para> split(String text, CorpusSpec.Split split) {
    List<Para> out = new ArrayList<>();
    String[] lines = text.split("\n", -1);
    if (split == CorpusSpec.Split.NEWLINE) {
      int at = 0;
      for (int i = 0; i < lines.length; i++) {
        int end = at + lines[i].length();
        out.add(new Para(at, end, i == lines.length - 1 ? end : end + 1));
        at = end + 1;
      }
      return out;
    }
    List<int[]> ranges = new ArrayList<>();
    int at = 0;
    int open = -1;
    int lastEnd = -1;
    for (String line : lines) {
      if (!blank(line)) {
        if (open < 0) {
          open = at;
        }
        lastEnd = at + line.length();
      } else if (open >= 0) {
        ranges.add(new int[] {open, lastEnd});
        open = -1;
      }
      at += line.length() + 1;
    }
    if (open >= 0) {
      ranges.add(new int[] {open, lastEnd});
    }
    for (int i = 0; i < ranges.size(); i++) {
      int spanEnd = i + 1 < ranges.size() ? ranges.get(i + 1)[0] : text.length();
      out.add(new Para(ranges.get(i)[0], ranges.get(i)[1], spanEnd));
    }
    return out;
  }

  static boolean space(int c) {
    return Character.isWhitespace(c) || Character.isSpaceChar(c);
  }

  static boolean blank(String s) {
    return s.codePoints().allMatch(CorpusReference::space);
  }

  static boolean judged(String p, int minChars) {
    return !blank(p) && p.codePointCount(0, p.length()) >= minChars;
  }

  /** The runs of non-space code points of {@code s}, each with whether space came before it. */
  private static List<String> runs(String s, List<Boolean> spaceBefore) {
    List<String> runs = new ArrayList<>();
    StringBuilder b = new StringBuilder();
    boolean space = false;
    for (int cp : s.codePoints().toArray()) {
      if (space(cp)) {
        if (b.length() > 0) {
          runs.add(b.toString());
          spaceBefore.add(space);
          b.setLength(0);
          space = false;
        }
        space = true;
      } else {
        b.appendCodePoint(cp);
      }
    }
    if (b.length() > 0) {
      runs.add(b.toString());
      spaceBefore.add(space);
    }
    return runs;
  }

  static List<String> tokens(String s, Tokenizer tokenizer, TextNormalization norm) {
    List<Boolean> spaceBefore = new ArrayList<>();
    List<String> runs = runs(s, spaceBefore);
    List<String> tokens = new ArrayList<>();
    boolean pendingSpace = false;
    for (int i = 0; i < runs.size(); i++) {
      String t = norm.apply(runs.get(i));
      pendingSpace |= spaceBefore.get(i);
      if (t.isEmpty()) {
        continue;
      }
      if (tokenizer == Tokenizer.WORDS) {
        tokens.add(t);
      } else {
        if (pendingSpace && !tokens.isEmpty()) {
          tokens.add(" ");
        }
        t.codePoints().forEach(cp -> tokens.add(new String(Character.toChars(cp))));
      }
      pendingSpace = false;
    }
    return tokens;
  }

  static List<List<String>> grams(List<String> tokens, int n) {
    List<List<String>> g = new ArrayList<>();
    if (tokens.isEmpty()) {
      return g;
    }
    if (tokens.size() < n) {
      g.add(List.copyOf(tokens));
      return g;
    }
    for (int i = 0; i + n <= tokens.size(); i++) {
      g.add(List.copyOf(tokens.subList(i, i + n)));
    }
    return g;
  }

  /** The text without the spans of the removed paragraphs. */
  static String left(String text, List<Para> ps, boolean[] removed) {
    StringBuilder b =
        new StringBuilder(text.substring(0, ps.isEmpty() ? text.length() : ps.get(0).start()));
    for (int k = 0; k < ps.size(); k++) {
      if (!removed[k]) {
        b.append(text, ps.get(k).start(), ps.get(k).spanEnd());
      }
    }
    return b.toString();
  }

  /** Paragraph dedup over the documents in order. */
  static List<Decision> paragraphs(List<String> texts, CorpusSpec spec) {
    Set<String> seen = new HashSet<>();
    List<Decision> out = new ArrayList<>();
    for (String text : texts) {
      List<Para> ps = split(text, spec.split());
      boolean[] removed = new boolean[ps.size()];
      double[] score = new double[ps.size()];
      for (int k = 0; k < ps.size(); k++) {
        String p = text.substring(ps.get(k).start(), ps.get(k).end());
        if (judged(p, spec.minParagraphChars())
            && !seen.add(spec.paragraphNormalizer().normalize(p))) {
          removed[k] = true;
          score[k] = 1;
        }
      }
      out.add(new Decision(removed, score, false, 0, left(text, ps, removed)));
    }
    return out;
  }

  /** BFF's rule over the documents in order. */
  static List<Decision> ngrams(List<String> texts, CorpusSpec spec) {
    Set<List<String>> seen = new HashSet<>();
    List<Decision> out = new ArrayList<>();
    for (String text : texts) {
      List<Para> ps = split(text, spec.split());
      boolean[] removed = new boolean[ps.size()];
      double[] score = new double[ps.size()];
      long docSeen = 0;
      long docAll = 0;
      for (int k = 0; k < ps.size(); k++) {
        String p = text.substring(ps.get(k).start(), ps.get(k).end());
        if (!judged(p, spec.minParagraphChars())) {
          continue;
        }
        List<List<String>> g =
            grams(tokens(p, spec.tokenizer(), spec.normalization()), spec.ngram());
        if (g.isEmpty()) {
          continue;
        }
        int contained = 0;
        for (List<String> x : g) {
          contained += seen.contains(x) ? 1 : 0;
        }
        seen.addAll(g);
        docSeen += contained;
        docAll += g.size();
        double share = (double) contained / g.size();
        if (share >= spec.threshold()) {
          removed[k] = true;
          score[k] = share;
        }
      }
      boolean whole = false;
      double wholeScore = 0;
      if (spec.documentThreshold() > 0 && docAll > 0) {
        double share = (double) docSeen / docAll;
        if (share >= spec.documentThreshold()) {
          whole = true;
          wholeScore = share;
        }
      }
      out.add(new Decision(removed, score, whole, wholeScore, left(text, ps, removed)));
    }
    return out;
  }

  /** Decontamination against the evaluation texts. */
  static List<Decision> decontaminate(List<String> texts, List<String> evals, CorpusSpec spec) {
    Set<List<String>> against = new HashSet<>();
    for (String e : evals) {
      against.addAll(grams(tokens(e, spec.tokenizer(), spec.normalization()), spec.ngram()));
    }
    List<Decision> out = new ArrayList<>();
    for (String text : texts) {
      List<Para> ps = split(text, spec.split());
      boolean[] removed = new boolean[ps.size()];
      double[] score = new double[ps.size()];
      boolean whole = false;
      double wholeScore = 0;
      if (spec.unit() == CorpusSpec.Unit.DOCUMENT) {
        List<List<String>> g =
            grams(tokens(text, spec.tokenizer(), spec.normalization()), spec.ngram());
        long m = g.stream().filter(against::contains).count();
        if (m > 0 && (double) m / g.size() >= spec.threshold()) {
          whole = true;
          wholeScore = (double) m / g.size();
        }
      } else {
        for (int k = 0; k < ps.size(); k++) {
          String p = text.substring(ps.get(k).start(), ps.get(k).end());
          if (!judged(p, spec.minParagraphChars())) {
            continue;
          }
          List<List<String>> g =
              grams(tokens(p, spec.tokenizer(), spec.normalization()), spec.ngram());
          long m = g.stream().filter(against::contains).count();
          if (m > 0 && (double) m / g.size() >= spec.threshold()) {
            removed[k] = true;
            score[k] = (double) m / g.size();
          }
        }
      }
      out.add(new Decision(removed, score, whole, wholeScore, left(text, ps, removed)));
    }
    return out;
  }

  /** {@code text} as a JSON string: the shortest escapes, non-ASCII as UTF-8 text. */
  static String jsonString(String text) {
    StringBuilder b = new StringBuilder("\"");
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      boolean pair =
          Character.isHighSurrogate(c)
              && i + 1 < text.length()
              && Character.isLowSurrogate(text.charAt(i + 1));
      if (pair) {
        b.append(c).append(text.charAt(++i));
      } else if (Character.isSurrogate(c)) {
        b.append(String.format("\\u%04x", (int) c));
      } else if (c == '"' || c == '\\') {
        b.append('\\').append(c);
      } else if (c == '\n') {
        b.append("\\n");
      } else if (c == '\r') {
        b.append("\\r");
      } else if (c == '\t') {
        b.append("\\t");
      } else if (c == '\b') {
        b.append("\\b");
      } else if (c == '\f') {
        b.append("\\f");
      } else if (c < 0x20) {
        b.append(String.format("\\u%04x", (int) c));
      } else {
        b.append(c);
      }
    }
    return b.append('"').toString();
  }
}
