package dev.idem.engine.corpus;

import dev.idem.engine.output.OutputFile;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Locale;

/**
 * Writes what a corpus job removed: a line of {@code --dropped} for each removed unit, and a line
 * of {@code --annotate} for each document (dolma's attribute layout), spans in code points of the
 * content as read, so that tools reading the text in Python or Rust find the same offsets.
 */
final class RemovalWriter {

  private final String attribute;
  private final OutputFile dropped;
  private final OutputFile annotate;
  private final TextBytes line = new TextBytes();

  /**
   * @param dropped {@code --dropped}, or {@code null}
   * @param annotate {@code --annotate}, or {@code null}
   */
  RemovalWriter(CorpusSpec.Mode mode, OutputFile dropped, OutputFile annotate) {
    this.attribute = attributeName(mode);
    this.dropped = dropped;
    this.annotate = annotate;
  }

  /** The attribute each mode writes to {@code --annotate}. */
  static String attributeName(CorpusSpec.Mode mode) {
    return switch (mode) {
      case PARAGRAPHS -> "idem_duplicate_paragraph_spans";
      case NGRAMS -> "idem_ngram_overlap_spans";
      case DECONTAMINATE -> "idem_contamination_spans";
    };
  }

  /** Code-point offsets of a text's char offsets, for ascending offsets mostly. */
  static final class CodePoints {
    private final String text;
    private int at;
    private int points;

    CodePoints(String text) {
      this.text = text;
    }

    int of(int index) {
      if (index < at) {
        at = 0;
        points = 0;
      }
      points += text.codePointCount(at, index);
      at = index;
      return points;
    }
  }

  /**
   * {@code FILE<TAB>LINE<TAB>UNIT<TAB>START<TAB>END<TAB>SCORE<TAB>TEXT}: the span in code points of
   * the content as read, and {@code text[from, to)} as a JSON string.
   */
  void dropped(
      String name,
      long lineNo,
      String unit,
      CodePoints cp,
      int start,
      int end,
      double score,
      String text,
      int from,
      int to)
      throws IOException {
    byte[] file = name.getBytes(StandardCharsets.UTF_8); // a path's bytes, not its chars
    dropped.write(file, 0, file.length);
    String head =
        "\t"
            + lineNo
            + "\t"
            + unit
            + "\t"
            + cp.of(start)
            + "\t"
            + cp.of(end)
            + "\t"
            + score(score)
            + "\t";
    byte[] h = head.getBytes(StandardCharsets.US_ASCII);
    dropped.write(h, 0, h.length);
    int len = JsonStrings.write(text, from, to, line, 0);
    dropped.write(line.bytes, 0, len);
    dropped.write((byte) '\n');
  }

  /**
   * The document's line of {@code --annotate}: {@code {"id":…,"attributes":{"NAME":[[start, end,
   * score],…]}}}, spans in code points: the paragraphs {@code removed} marks, with their {@code
   * score}, or the whole text when {@code whole}.
   */
  void annotate(
      ParsedDocument d,
      CodePoints cp,
      boolean whole,
      double wholeScore,
      boolean[] removed,
      double[] score)
      throws IOException {
    if (annotate == null) {
      return;
    }
    StringBuilder b = new StringBuilder(64);
    if (whole) {
      b.append('[')
          .append(0)
          .append(',')
          .append(cp.of(d.text.length()))
          .append(',')
          .append(score(wholeScore))
          .append(']');
    } else {
      for (int k = 0; k < d.paragraphs; k++) {
        if (removed[k]) {
          if (b.length() > 0) {
            b.append(',');
          }
          b.append('[')
              .append(cp.of(d.start[k]))
              .append(',')
              .append(cp.of(d.spanEnd[k]))
              .append(',')
              .append(score(score[k]))
              .append(']');
        }
      }
    }
    String lineText =
        "{\"id\":" + d.idJson + ",\"attributes\":{\"" + attribute + "\":[" + b + "]}}\n";
    byte[] bytes = lineText.getBytes(StandardCharsets.UTF_8);
    annotate.write(bytes, 0, bytes.length);
  }

  /** A score as written: 1.0, or four decimals. */
  static String score(double s) {
    return s == 1 ? "1.0" : String.format(Locale.ROOT, "%.4f", s);
  }
}
