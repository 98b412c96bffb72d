package dev.idem.engine.neardup;

import dev.idem.engine.JobException;
import dev.idem.engine.input.InputFile;
import dev.idem.engine.output.OutputFile;
import dev.idem.engine.records.InputRead;
import dev.idem.engine.records.KeyExtractor;
import dev.idem.engine.records.RecordBatch;
import dev.idem.engine.records.RecordSource;
import dev.idem.engine.run.InputCursor;
import dev.idem.engine.run.InputPosition;
import dev.idem.engine.run.ResumableRun;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.Supplier;

/**
 * Writes the judged documents: each document whose survivor is itself to the output, the others to
 * {@code --dropped} ({@code FILE<TAB>LINE<TAB>record}), and the listed ones to {@code --clusters},
 * in input order. With a state it resumes from a checkpoint and takes one every {@code
 * checkpointDocuments} documents or {@code checkpointMillis}, and a last one that says the job is
 * done.
 *
 * <p>The batch job drives it from a second read and its {@link Judgement} ({@link #write}); the
 * streaming job hands it each document as soon as it is judged ({@link #document}, {@link #passed},
 * {@link #finish}).
 */
final class SurvivorWriter implements AutoCloseable {

  private final NearDupSpec spec;
  private final List<InputFile> inputs;
  private final ResumableRun<NearDupState.Progress> state;
  private final Supplier<NearDupState.Counts> judgingCounts;

  /** What a batch job's judging read of every input; {@code null} for a streaming job. */
  private final List<InputRead> judged;

  /** A streaming job's position in its one read, with what it read; {@code null} otherwise. */
  private InputCursor cursor;

  private final OutputFile out;
  private final OutputFile dropped;
  private final OutputFile clusters;
  private int fileIndex;
  private long offset;
  private long line;
  private int doc;
  private long kept;
  private long sinceCheckpoint;
  private long lastCheckpoint = System.nanoTime();

  /**
   * Opens the outputs: from the checkpoint {@code from}, or empty.
   *
   * @param state the job's state, or {@code null}
   * @param from with a state, the checkpoint to write from, or {@code null}: the start
   * @param judgingCounts the first read's counts, for the checkpoints
   */
  SurvivorWriter(
      NearDupSpec spec,
      List<InputFile> inputs,
      ResumableRun<NearDupState.Progress> state,
      NearDupState.Progress from,
      List<InputRead> judged,
      Supplier<NearDupState.Counts> judgingCounts,
      OutputStream stdout)
      throws IOException {
    this.spec = spec;
    this.inputs = inputs;
    this.state = state;
    this.judged = judged;
    this.judgingCounts = judgingCounts;
    if (from != null) {
      fileIndex = from.position().fileIndex();
      offset = from.position().offset();
      line = from.position().line();
      doc = from.doc();
      kept = from.kept();
    }
    List<OutputFile> opened = new ArrayList<>(3);
    try {
      out =
          spec.output() == null
              ? OutputFile.stream("<stdout>", stdout)
              : OutputFile.open(
                  spec.output(), from == null ? OutputFile.Mark.EMPTY : from.output());
      opened.add(out);
      dropped = openAt(spec.dropped(), from == null ? OutputFile.Mark.EMPTY : from.dropped());
      opened.add(dropped);
      clusters = openAt(spec.clusters(), from == null ? OutputFile.Mark.EMPTY : from.clusters());
      opened.add(clusters);
      if (clusters != null && clusters.length() == 0) {
        text(clusters, "document\tcluster\tsimilarity\tfile\tline\n");
      }
    } catch (IOException | RuntimeException e) {
      for (OutputFile f : opened) {
        if (f != null) {
          f.close();
        }
      }
      throw e;
    }
  }

  /** An optional output ({@code null}: not asked for) cut back to a checkpoint's mark. */
  private static OutputFile openAt(Path file, OutputFile.Mark mark) throws IOException {
    return file == null ? null : OutputFile.open(file, mark);
  }

  /** Takes a streaming job's positions, with what it read, from {@code cursor}. */
  void track(InputCursor cursor) {
    this.cursor = cursor;
  }

  /**
   * The batch job's second read: every document from the checkpoint (or the start) to the end, as
   * {@code judgement} decided; returns the documents kept in all.
   */
  long write(Judgement judgement, InputStream stdin, KeyExtractor extractor) throws IOException {
    int n = judgement.documents();
    try (RecordSource source =
        NearDupJob.source(spec, inputs, extractor, false, stdin, fileIndex, offset, line)) {
      while (true) {
        RecordBatch batch = source.next();
        for (int i = 0; i < batch.count; i++) {
          if (batch.kind[i] == RecordBatch.OK) {
            if (doc == n) {
              throw changed(inputs.get(batch.fileIndex[i]).path());
            }
            document(
                batch,
                i,
                judgement.survivor(doc),
                judgement.similarity(doc),
                judgement.clustered(doc));
          }
          passed(batch, i);
        }
        boolean end = batch.endOfInput;
        source.recycle(batch);
        if (end) {
          break;
        }
      }
    }
    if (doc != n) {
      throw changed(inputs.isEmpty() ? "-" : inputs.get(inputs.size() - 1).path());
    }
    finish();
    return kept;
  }

  /**
   * Writes the next document, record {@code i} of {@code batch}: to the output when {@code
   * survivor} is itself, else to {@code --dropped}; to {@code --clusters} when {@code listed}. Then
   * call {@link #passed}.
   */
  void document(RecordBatch batch, int i, int survivor, double similarity, boolean listed)
      throws IOException {
    String name = inputs.get(batch.fileIndex[i]).path();
    if (survivor == doc) {
      out.writeRecord(batch, i);
      kept++;
    } else if (dropped != null) {
      byte[] file = name.getBytes(StandardCharsets.UTF_8); // a path's bytes, not its chars
      dropped.write(file, 0, file.length);
      text(dropped, "\t" + batch.line[i] + "\t");
      dropped.write(batch.arena, batch.start[i], batch.contentLength[i]);
      dropped.write((byte) '\n');
    }
    if (clusters != null && listed) {
      text(
          clusters,
          doc
              + "\t"
              + survivor
              + "\t"
              + String.format(Locale.ROOT, "%.4f", similarity)
              + "\t"
              + name
              + "\t"
              + batch.line[i]
              + "\n");
    }
    doc++;
    sinceCheckpoint++;
    if (state != null) {
      state.reached(NearDupState.Step.DOCUMENT_WRITTEN);
    }
  }

  /** Moves the position past record {@code i} of {@code batch}, and checkpoints when due. */
  void passed(RecordBatch batch, int i) throws IOException {
    fileIndex = batch.fileIndex[i];
    offset = batch.endOffset[i];
    line = batch.endLine[i];
    if (state != null
        && (sinceCheckpoint >= spec.checkpointDocuments()
            || ((i & 255) == 0
                && System.nanoTime() - lastCheckpoint > spec.checkpointMillis() * 1_000_000))) {
      checkpoint(NearDupState.Phase.WRITING);
      sinceCheckpoint = 0;
      lastCheckpoint = System.nanoTime();
    }
  }

  /** After the last record: with a state, the checkpoint that says the job is done. */
  void finish() throws IOException {
    if (state != null) {
      checkpoint(NearDupState.Phase.DONE);
    }
  }

  /** Hands what is written so far on (a streaming job's reader sees each batch's survivors). */
  void flush() throws IOException {
    out.flush();
    if (dropped != null) {
      dropped.flush();
    }
    if (clusters != null) {
      clusters.flush();
    }
  }

  /** Documents written so far, kept or not, from the start of the job. */
  int documents() {
    return doc;
  }

  /** Documents kept so far, from the start of the job. */
  long kept() {
    return kept;
  }

  /** Syncs the outputs, then commits their marks with the position in one atomic write. */
  private void checkpoint(NearDupState.Phase phase) throws IOException {
    OutputFile.Mark outMark = out.mark();
    OutputFile.Mark droppedMark = dropped == null ? OutputFile.Mark.EMPTY : dropped.mark();
    OutputFile.Mark clustersMark = clusters == null ? OutputFile.Mark.EMPTY : clusters.mark();
    state.reached(NearDupState.Step.OUTPUTS_SYNCED);
    InputPosition at =
        cursor != null ? cursor.position() : new InputPosition(fileIndex, offset, line, null, null);
    state.commit(
        new NearDupState.Progress(
            phase, at, judged, doc, kept, outMark, droppedMark, clustersMark, judgingCounts.get()));
  }

  @Override
  public void close() throws IOException {
    try (OutputFile o = out;
        OutputFile d = dropped;
        OutputFile c = clusters) {
      // closes all three, the first failure thrown
    }
  }

  static JobException changed(String name) {
    return new JobException(
        name
            + ": the inputs changed between near-dup's two reads (a different number of "
            + "documents); run it again on inputs that do not change while it runs");
  }

  private static void text(OutputFile out, String s) throws IOException {
    byte[] b = s.getBytes(StandardCharsets.UTF_8);
    out.write(b, 0, b.length);
  }
}
