package dev.idem.engine.corpus;

import dev.idem.engine.input.InputFile;
import dev.idem.engine.output.OutputFile;
import dev.idem.engine.records.RecordBatch;
import java.io.IOException;
import java.util.List;

/**
 * What becomes of one parsed document once its units are judged ({@link UnitJudge}): removed whole,
 * kept byte for byte, kept with its content field written again without the spans of its removed
 * paragraphs, or dropped because what is left is shorter than {@code --min-doc-chars}. Each removed
 * unit goes to {@code --dropped}, each document's removable spans to {@code --annotate}, and the
 * tally counts it all.
 */
final class DocumentRewriter {
  private final CorpusSpec spec;
  private final List<InputFile> inputs;
  private final CorpusTally tally;
  private final UnitJudge judge;
  private final CorpusOutputs outputs;
  private final TextBytes line = new TextBytes();
  private final StringBuilder left = new StringBuilder();

  DocumentRewriter(
      CorpusSpec spec,
      List<InputFile> inputs,
      CorpusTally tally,
      UnitJudge judge,
      CorpusOutputs outputs) {
    this.spec = spec;
    this.inputs = inputs;
    this.tally = tally;
    this.judge = judge;
    this.outputs = outputs;
  }

  /** Judges document {@code d}, record {@code i} of {@code batch}, and writes what it comes to. */
  void document(RecordBatch batch, int i, ParsedDocument d) throws IOException {
    judge.judge(d);
    int n = d.paragraphs;
    boolean[] removed = judge.removed;
    double[] score = judge.score;
    boolean any = judge.any;
    double wholeScore = judge.wholeScore;
    String name = inputs.get(batch.fileIndex[i]).path();
    long lineNo = batch.line[i];
    OutputFile out = outputs.out;
    OutputFile dropped = outputs.dropped;
    RemovalWriter removals = outputs.removals;
    RemovalWriter.CodePoints cp = new RemovalWriter.CodePoints(d.text);
    if (wholeScore >= 0) {
      tally.removedDocuments++;
      tally.removedChars += d.text.length();
      if (dropped != null) {
        if (spec.mode() == CorpusSpec.Mode.DECONTAMINATE) {
          removals.dropped(
              name,
              lineNo,
              "document",
              cp,
              d.matchStart[0],
              d.matchEnd[0],
              wholeScore,
              d.text,
              d.matchStart[0],
              d.matchEnd[0]);
        } else {
          removals.dropped(
              name,
              lineNo,
              "document",
              cp,
              0,
              d.text.length(),
              wholeScore,
              d.text,
              0,
              d.text.length());
        }
      }
      removals.annotate(d, cp, true, wholeScore, removed, score);
      return;
    }
    if (!any) {
      tally.kept++;
      if (out != null) {
        out.writeRecord(batch, i);
      }
      removals.annotate(d, cp, false, 0, removed, score);
      return;
    }
    // the text without the spans of the removed paragraphs
    left.setLength(0);
    left.append(d.text, 0, n == 0 ? d.text.length() : d.start[0]);
    for (int k = 0; k < n; k++) {
      if (removed[k]) {
        tally.removedParagraphs++;
        if (dropped != null) {
          boolean decon = spec.mode() == CorpusSpec.Mode.DECONTAMINATE;
          int s = decon ? d.matchStart[k] : d.start[k];
          int e = decon ? d.matchEnd[k] : d.spanEnd[k];
          removals.dropped(
              name, lineNo, "paragraph", cp, s, e, score[k], d.text, s, decon ? e : d.end[k]);
        }
      } else {
        left.append(d.text, d.start[k], d.spanEnd[k]);
      }
    }
    String rest = left.toString();
    tally.removedChars += d.text.length() - rest.length();
    String stripped = rest.strip();
    if (stripped.length() < spec.minDocChars()
        || stripped.codePointCount(0, stripped.length()) < spec.minDocChars()) {
      tally.shortDocuments++;
      tally.removedChars += rest.length();
      if (dropped != null) {
        removals.dropped(
            name, lineNo, "document", cp, 0, d.text.length(), 1, rest, 0, rest.length());
      }
      removals.annotate(d, cp, true, 1, removed, score);
      return;
    }
    tally.kept++;
    tally.changed++;
    if (out != null) {
      writeRewritten(out, batch, i, d, rest);
    }
    removals.annotate(d, cp, false, 0, removed, score);
  }

  /** The record as read but for its content field's value, which is {@code rest} as JSON. */
  private void writeRewritten(
      OutputFile out, RecordBatch batch, int i, ParsedDocument d, String rest) throws IOException {
    int start = batch.start[i];
    byte[] a = batch.arena;
    out.write(a, start, d.valueStart);
    int len = JsonStrings.write(rest, 0, rest.length(), line, 0);
    out.write(line.bytes, 0, len);
    int after = start + d.valueEnd;
    int terminator = batch.terminatorLength[i];
    out.write(a, after, start + batch.contentLength[i] + terminator - after);
    if (terminator == 0) {
      out.write((byte) '\n');
    }
  }
}
