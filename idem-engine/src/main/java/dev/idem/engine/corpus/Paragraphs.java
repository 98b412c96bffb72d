package dev.idem.engine.corpus;

import java.util.Arrays;

/**
 * Cuts a document's text into paragraphs. A paragraph is a range of the text, {@code [start, end)}
 * in chars; its span, what removing it removes, runs from its start to the next paragraph's start
 * (its separator included), or to the end of the text for the last one: dolma's paragraph spans,
 * which cover a paragraph and its line break.
 *
 * <ul>
 *   <li>{@link CorpusSpec.Split#NEWLINE}: the text between line breaks ({@code \n}); a text ending
 *       in a line break has an empty last paragraph, and two breaks in a row an empty one between.
 *   <li>{@link CorpusSpec.Split#BLANK_LINE}: runs of lines that are not blank (white space only),
 *       joined by their line breaks; the blank lines after a paragraph belong to its span, and
 *       those before the first paragraph to none.
 * </ul>
 *
 * <p>Not thread-safe: it reuses its arrays.
 */
final class Paragraphs {

  int count;
  int[] start = new int[16];
  int[] end = new int[16];
  int[] spanEnd = new int[16];

  /** Cuts {@code text}. */
  void split(String text, CorpusSpec.Split split) {
    count = 0;
    if (split == CorpusSpec.Split.NEWLINE) {
      int from = 0;
      while (true) {
        int nl = text.indexOf('\n', from);
        if (nl < 0) {
          add(from, text.length(), text.length());
          return;
        }
        add(from, nl, nl + 1);
        from = nl + 1;
      }
    }
    int at = 0;
    int open = -1; // start of the paragraph being read
    int lastEnd = -1; // end of its last line that is not blank
    while (at <= text.length()) {
      int nl = text.indexOf('\n', at);
      int lineEnd = nl < 0 ? text.length() : nl;
      boolean blank = isBlank(text, at, lineEnd);
      if (!blank) {
        if (open < 0) {
          if (count > 0) {
            spanEnd[count - 1] = at;
          }
          open = at;
        }
        lastEnd = lineEnd;
      } else if (open >= 0) {
        add(open, lastEnd, -1);
        open = -1;
      }
      if (nl < 0) {
        break;
      }
      at = nl + 1;
    }
    if (open >= 0) {
      add(open, lastEnd, -1);
    }
    if (count > 0) {
      spanEnd[count - 1] = text.length();
    }
  }

  private void add(int s, int e, int span) {
    if (count == start.length) {
      start = Arrays.copyOf(start, 2 * count);
      end = Arrays.copyOf(end, 2 * count);
      spanEnd = Arrays.copyOf(spanEnd, 2 * count);
    }
    start[count] = s;
    end[count] = e;
    spanEnd[count] = span;
    count++;
  }

  /** Whether {@code text[from, to)} holds nothing but white space. */
  static boolean isBlank(String text, int from, int to) {
    for (int i = from; i < to; ) {
      int c = text.codePointAt(i);
      if (!isSpace(c)) {
        return false;
      }
      i += Character.charCount(c);
    }
    return true;
  }

  /** White space as the tokenizers see it (Unicode white space and space separators). */
  static boolean isSpace(int c) {
    if (c < 0x80) {
      return c == ' ' || (c >= 9 && c <= 13) || (c >= 28 && c <= 31);
    }
    return Character.isWhitespace(c) || Character.isSpaceChar(c);
  }
}
