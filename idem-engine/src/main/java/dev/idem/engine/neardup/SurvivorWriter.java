package dev.idem.engine.neardup;

import dev.idem.engine.JobException;
import dev.idem.engine.records.InputFile;
import dev.idem.engine.records.KeyExtractor;
import dev.idem.engine.records.OutputFile;
import dev.idem.engine.records.RecordBatch;
import dev.idem.engine.records.RecordSource;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Locale;

/**
 * The second read of a near-dup job: each document whose survivor is itself to the output, the
 * others to {@code --dropped} ({@code FILE<TAB>LINE<TAB>record}), and each document of a cluster of
 * two or more to {@code --clusters}, in input order. With a state it resumes from a checkpoint and
 * takes one every {@code checkpointDocuments} documents or {@code checkpointMillis}, and a last one
 * that says the job is done.
 */
final class SurvivorWriter {

  private final NearDupSpec spec;
  private final List<InputFile> inputs;
  private final KeyExtractor extractor;
  private final Judgement judgement;
  private final NearDupState state;
  private final NearDupState.Progress from;
  private final OutputStream stdout;

  private OutputFile out;
  private OutputFile dropped;
  private OutputFile clusters;
  private int fileIndex;
  private long offset;
  private long line;
  private int doc;
  private long kept;

  /**
   * @param state the job's state, or {@code null}
   * @param from with a state, the checkpoint to write from (the one that committed the judgement,
   *     or a later one)
   */
  SurvivorWriter(
      NearDupSpec spec,
      List<InputFile> inputs,
      KeyExtractor extractor,
      Judgement judgement,
      NearDupState state,
      NearDupState.Progress from,
      OutputStream stdout) {
    this.spec = spec;
    this.inputs = inputs;
    this.extractor = extractor;
    this.judgement = judgement;
    this.state = state;
    this.from = from;
    this.stdout = stdout;
  }

  /** Writes from the checkpoint (or the start) to the end; returns the documents kept in all. */
  long write(InputStream stdin) throws IOException {
    if (from != null) {
      fileIndex = from.fileIndex();
      offset = from.offset();
      line = from.line();
      doc = from.doc();
      kept = from.kept();
    }
    try (OutputFile o =
            spec.output() == null
                ? OutputFile.stream("<stdout>", stdout)
                : from == null
                    ? OutputFile.open(spec.output())
                    : OutputFile.open(spec.output(), from.outputBytes(), from.outputTail());
        OutputFile d =
            spec.dropped() == null
                ? null
                : from == null
                    ? OutputFile.open(spec.dropped())
                    : OutputFile.open(spec.dropped(), from.droppedBytes(), from.droppedTail());
        OutputFile c =
            spec.clusters() == null
                ? null
                : from == null
                    ? OutputFile.open(spec.clusters())
                    : OutputFile.open(spec.clusters(), from.clustersBytes(), from.clustersTail());
        RecordSource source =
            NearDupJob.source(spec, inputs, extractor, false, stdin, fileIndex, offset, line)) {
      out = o;
      dropped = d;
      clusters = c;
      if (clusters != null && clusters.length() == 0) {
        text(clusters, "document\tcluster\tsimilarity\tfile\tline\n");
      }
      read(source);
      if (doc != judgement.documents()) {
        throw changed(inputs.isEmpty() ? "-" : inputs.get(inputs.size() - 1).path());
      }
      if (state != null) {
        checkpoint(NearDupState.Phase.DONE);
      }
    }
    return kept;
  }

  private void read(RecordSource source) throws IOException {
    int n = judgement.documents();
    long sinceCheckpoint = 0;
    long lastCheckpoint = System.nanoTime();
    while (true) {
      RecordBatch batch = source.next();
      for (int i = 0; i < batch.count; i++) {
        if (batch.kind[i] == RecordBatch.OK) {
          if (doc == n) {
            throw changed(inputs.get(batch.fileIndex[i]).path());
          }
          handle(batch, i);
          doc++;
          sinceCheckpoint++;
        }
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
      boolean end = batch.endOfInput;
      source.recycle(batch);
      if (end) {
        return;
      }
    }
  }

  private void handle(RecordBatch batch, int i) throws IOException {
    int survivor = judgement.survivor(doc);
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
    if (clusters != null && judgement.clustered(doc)) {
      text(
          clusters,
          doc
              + "\t"
              + survivor
              + "\t"
              + String.format(Locale.ROOT, "%.4f", judgement.similarity(doc))
              + "\t"
              + name
              + "\t"
              + batch.line[i]
              + "\n");
    }
  }

  /** Syncs the outputs, then commits their lengths with the position in one atomic write. */
  private void checkpoint(NearDupState.Phase phase) throws IOException {
    out.sync();
    if (dropped != null) {
      dropped.sync();
    }
    if (clusters != null) {
      clusters.sync();
    }
    state.write(
        new NearDupState.Progress(
            state.job(),
            phase,
            fileIndex,
            offset,
            line,
            doc,
            kept,
            out.length(),
            out.tailChecksum(),
            dropped == null ? 0 : dropped.length(),
            dropped == null ? null : dropped.tailChecksum(),
            clusters == null ? 0 : clusters.length(),
            clusters == null ? null : clusters.tailChecksum(),
            from.records(),
            from.documents(),
            from.exactDuplicates(),
            from.badRecords(),
            from.blankLines(),
            from.candidatePairs(),
            from.comparedPairs(),
            from.acceptedPairs(),
            from.quarantineBytes()));
  }

  private static JobException changed(String name) {
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
