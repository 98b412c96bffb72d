package dev.idem.engine.corpus;

import dev.idem.core.Fingerprinter;
import dev.idem.core.filter.MembershipFilter;
import dev.idem.engine.input.InputFile;
import dev.idem.engine.records.BadRecordException;
import dev.idem.engine.records.BadRecordPolicy;
import dev.idem.engine.records.KeyExtractor;
import dev.idem.engine.records.KeySpec;
import dev.idem.engine.records.RecordBatch;
import dev.idem.engine.records.RecordFormat;
import dev.idem.engine.records.RecordSource;
import dev.idem.engine.run.InputCursor;
import dev.idem.engine.run.InputPosition;
import dev.idem.engine.run.JobListener;
import dev.idem.engine.run.PhaseProgress;
import dev.idem.engine.run.PhaseReporter;
import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayDeque;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

/**
 * The corpus's one read, once the set and the outputs are open: the source from the start position,
 * each batch parsed on N threads ({@link ParsingPool}) while the one before is handled, each record
 * handled in input order (a document rewritten, a blank line counted, a bad record failed on,
 * skipped or quarantined), a checkpoint every so many documents or milliseconds when there is a
 * state, and the last checkpoint (or a flush) at the end.
 */
final class DocumentLoop {
  private final CorpusSpec spec;
  private final List<InputFile> inputs;
  private final InputStream stdin;
  private final JobListener listener;
  private final Consumer<String> warnings;
  private final CorpusTally tally;
  private final CorpusOutputs outputs;
  private final DocumentRewriter rewriter;

  /** What was seen ({@code null} when decontaminating), checked for its rate at the end. */
  private final SeenSet seen;

  /** The evaluation sets' n-grams when decontaminating, else {@code null}. */
  private final MembershipFilter against;

  /** {@code null} without a state: nothing is checkpointed. */
  private final CorpusCheckpoints checkpoints;

  /** With a state: where the job stands, for its checkpoints. */
  private InputCursor cursor;

  DocumentLoop(
      CorpusSpec spec,
      List<InputFile> inputs,
      InputStream stdin,
      JobListener listener,
      Consumer<String> warnings,
      CorpusTally tally,
      CorpusOutputs outputs,
      DocumentRewriter rewriter,
      SeenSet seen,
      MembershipFilter against,
      CorpusCheckpoints checkpoints) {
    this.spec = spec;
    this.inputs = inputs;
    this.stdin = stdin;
    this.listener = listener;
    this.warnings = warnings;
    this.tally = tally;
    this.outputs = outputs;
    this.rewriter = rewriter;
    this.seen = seen;
    this.against = against;
    this.checkpoints = checkpoints;
  }

  /** How the corpus (and the evaluation sets) are read. */
  static RecordSource.Settings settings(CorpusSpec spec) {
    // the reading thread only cuts lines (and marks blank ones): the parsing threads do the rest
    return new RecordSource.Settings(
        RecordFormat.JSONL,
        false,
        KeyExtractor.of(new KeySpec.WholeLine(), RecordFormat.JSONL),
        Fingerprinter.xxh3(),
        false,
        spec.maxRecordBytes());
  }

  /**
   * Reads from {@code at} to the end of the inputs; {@code verifyStart}: the resume must check what
   * was read before of the input it resumes in.
   */
  void run(InputPosition at, boolean verifyStart) throws IOException {
    RecordSource.Settings settings = settings(spec);
    long sinceCheckpoint = 0;
    long lastCheckpoint = System.nanoTime();
    try (RecordSource source =
            checkpoints != null
                ? RecordSource.tracking(
                    inputs,
                    settings,
                    at.fileIndex(),
                    at.offset(),
                    at.line(),
                    at.current(),
                    verifyStart)
                : new RecordSource(inputs, settings, stdin, 0, 0, 0);
        ParsingPool pool =
            new ParsingPool(spec.threads(), () -> DocumentParser.of(spec, against))) {
      if (checkpoints != null) {
        cursor = new InputCursor(source.reads(), at, inputs.size());
      }
      // input bytes as stored; nothing is drawn for standard input, whose size is not known
      PhaseReporter progress =
          new PhaseReporter(
              listener,
              CorpusJob.PHASE,
              PhaseProgress.Unit.BYTES,
              source.rawBytesRead(),
              InputFile.bytesBefore(inputs, inputs.size()));
      ArrayDeque<ParsingPool.Pending> pending = new ArrayDeque<>();
      boolean ended = false;
      while (true) {
        while (!ended && pending.size() < 2) {
          RecordBatch b = source.next();
          ended = b.endOfInput;
          pending.add(pool.submit(b));
        }
        ParsingPool.Pending p = pending.poll();
        RecordBatch batch = p.batch;
        ParsedDocument[] docs = p.get();
        for (int i = 0; i < batch.count; i++) {
          handle(batch, i, docs[i]);
          if (cursor == null) {
            continue;
          }
          cursor.handled(batch, i);
          sinceCheckpoint++;
          if (sinceCheckpoint >= spec.checkpointDocuments()
              || ((i & 255) == 255
                  && System.nanoTime() - lastCheckpoint > spec.checkpointMillis() * 1_000_000)) {
            checkpoints.checkpoint(
                cursor, false); // after record i: the batch's later records come after it
            sinceCheckpoint = 0;
            lastCheckpoint = System.nanoTime();
          }
        }
        if (batch.endOfInput) {
          finish();
          source.recycle(batch);
          progress.end();
          return;
        }
        source.recycle(batch);
        Map<String, Long> counts = new LinkedHashMap<>(); // shown in this order
        counts.put("records", tally.documents);
        counts.put("kept", tally.kept);
        progress.at(source.rawBytesRead(), counts);
      }
    }
  }

  private void handle(RecordBatch batch, int i, ParsedDocument d) throws IOException {
    switch (batch.kind[i]) {
      case RecordBatch.OK -> {
        tally.records++;
        if (!d.ok()) {
          bad(batch, i, d.problem);
          return;
        }
        tally.documents++;
        rewriter.document(batch, i, d);
        if (checkpoints != null) {
          checkpoints.reached(CorpusState.Step.DOCUMENT_HANDLED);
        }
      }
      case RecordBatch.BLANK -> tally.blankLines++;
      case RecordBatch.HEADER -> {}
      default -> {
        tally.records++;
        bad(batch, i, batch.problem[i]);
      }
    }
  }

  private void bad(RecordBatch batch, int i, String problem) throws IOException {
    String name = inputs.get(batch.fileIndex[i]).path();
    if (spec.onBadRecord() instanceof BadRecordPolicy.Fail) {
      tally.records--;
      if (checkpoints != null) {
        checkpoints.checkpoint(
            cursor, false); // just before this record: a rerun with skip goes on from it
      }
      throw new BadRecordException(name, batch.line[i], problem, checkpoints != null);
    }
    tally.badRecords++;
    if (outputs.quarantine != null) {
      String w = outputs.quarantine.quarantine(batch, i, name);
      if (w != null) {
        warnings.accept(w);
      }
    }
  }

  private void finish() throws IOException {
    if (checkpoints != null) {
      checkpoints.checkpoint(cursor, true);
      return;
    }
    if (seen != null) {
      seen.checkRate(true);
    }
    outputs.flush();
  }
}
