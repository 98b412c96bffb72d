package dev.idem.engine.corpus;

import dev.idem.engine.JobException;
import dev.idem.engine.input.InputFile;
import dev.idem.engine.input.InputPaths;
import dev.idem.engine.records.BadRecordException;
import dev.idem.engine.records.InputCheck;
import dev.idem.engine.run.CrashPoints;
import dev.idem.engine.run.InputPosition;
import dev.idem.engine.run.JobListener;
import dev.idem.engine.run.JobWarnings;
import dev.idem.engine.run.ResumableRun;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.util.List;
import java.util.Locale;

/**
 * Cleans a corpus of JSON Lines documents at the granularity of paragraphs and n-grams, in one read
 * (docs/CORPUS.md):
 *
 * <ul>
 *   <li>{@link CorpusSpec.Mode#PARAGRAPHS}: each paragraph's first occurrence in input order stays;
 *       every later one is removed from its document.
 *   <li>{@link CorpusSpec.Mode#NGRAMS}: a paragraph whose n-grams were seen before in at least the
 *       threshold's share is removed (BFF's rule), and with a document threshold a document whose
 *       n-grams were; every n-gram of every judged paragraph then counts as seen.
 *   <li>{@link CorpusSpec.Mode#DECONTAMINATE}: a document (or paragraph) holding n-grams of the
 *       evaluation sets is removed; the evaluation sets' n-grams are a set read only.
 * </ul>
 *
 * <p>A document keeps everything but its content field byte for byte: the content is written again
 * as a JSON string of what is left (the text minus the spans removed, a span being a paragraph and
 * its separator), and a document whose paragraphs were all removed, or that is left shorter than
 * {@code --min-doc-chars}, is dropped. Each removed unit goes to {@code --dropped}, and {@code
 * --annotate} writes each document's removable spans in dolma's attribute layout.
 *
 * <p>Documents are parsed and hashed on N threads a batch at a time, and judged on the job's thread
 * in input order, so the first occurrence survives and the output is the same for any N. With a
 * state ({@link CorpusState}) the job checkpoints through the kernel and a killed job, run again,
 * writes what an uninterrupted run writes.
 */
public final class CorpusJob {

  /** The phase its progress reports name: the one read. */
  public static final String PHASE = "clean";

  private final CorpusSpec spec;
  private final InputStream stdin;
  private final OutputStream stdout;
  private final JobListener listener;
  private final CrashPoints crash;
  private final JobWarnings warnings;

  /** What the job counted, through the record it is at. */
  private final CorpusTally tally = new CorpusTally();

  /** What was seen; {@code null} when decontaminating, and until it is open. */
  private SeenSet seen;

  /** Decontamination's evaluation sets, once read. */
  private EvaluationSets.Read against;

  private CorpusJob(
      CorpusSpec spec,
      InputStream stdin,
      OutputStream stdout,
      JobListener listener,
      CrashPoints crash) {
    this.spec = spec;
    this.stdin = stdin;
    this.stdout = stdout;
    this.listener = listener;
    this.warnings = new JobWarnings(listener);
    this.crash = crash;
  }

  /**
   * Runs the job, or resumes it from its state.
   *
   * @throws BadRecordException for a bad record under {@code fail} (after a checkpoint, with a
   *     state)
   * @throws JobException for a job that cannot run as specified (a message for the user)
   */
  public static CorpusResult run(
      CorpusSpec spec, InputStream stdin, OutputStream stdout, JobListener listener)
      throws IOException {
    return run(spec, stdin, stdout, listener, CrashPoints.configured());
  }

  /** {@link #run}, reaching {@code crash} at each step (test seam, see {@link CrashPoints}). */
  static CorpusResult run(
      CorpusSpec spec,
      InputStream stdin,
      OutputStream stdout,
      JobListener listener,
      CrashPoints crash)
      throws IOException {
    return new CorpusJob(spec, stdin, stdout, listener, crash).run();
  }

  private CorpusResult run() throws IOException {
    long started = System.nanoTime();
    List<InputFile> inputs = InputFile.expand(spec.inputs());
    if (spec.inputs().stream().anyMatch(InputPaths::isPattern)) {
      listener.note(
          String.format(
              Locale.ROOT, "%,d input file%s found", inputs.size(), inputs.size() == 1 ? "" : "s"));
    }
    CorpusPreconditions.check(spec, inputs);
    List<InputFile> againstFiles = EvaluationSets.files(spec);
    try (ResumableRun<CorpusState.Progress> state =
        spec.state() == null
            ? null
            : CorpusState.open(
                spec.state(), CorpusState.identity(spec, inputs, againstFiles), crash)) {
      CorpusState.Progress from = state != null && state.resumed() ? state.checkpoint() : null;
      if (from != null && from.complete()) {
        tally.restore(from.counts());
        warnings.add(
            spec.state() + " holds a finished job: nothing was done; its output is as written");
        return result(started, true);
      }
      InputPosition at = InputPosition.START;
      boolean verifyStart = false;
      long sequence = 0;
      long snapshot = 0;
      if (from != null) {
        InputCheck.Outcome o =
            state.checkInputs(inputs, from.position(), spec.verifyInputs(), warnings.listener());
        verifyStart = o.verifyStart();
        at = ResumableRun.vouched(from.position(), o);
        tally.restore(from.counts());
        sequence = from.sequence();
        snapshot = from.snapshot();
      }
      if (spec.mode() == CorpusSpec.Mode.DECONTAMINATE) {
        against = EvaluationSets.read(spec, againstFiles, DocumentLoop.settings(spec), stdin);
      }
      if (state != null) {
        CorpusState.deleteUnnamed(state.directory(), from);
      }
      CorpusOutputs outputs = new CorpusOutputs(spec, stdout);
      try {
        outputs.open(from);
        if (spec.mode() != CorpusSpec.Mode.DECONTAMINATE) {
          if (from == null || from.structure() == null) {
            seen =
                SeenSetStart.fresh(
                    spec, inputs, listener, state == null ? null : state.directory());
            snapshot = 0;
          } else {
            seen = SeenSetStart.restored(spec, state.directory(), from);
          }
        }
        CorpusCheckpoints checkpoints =
            state == null
                ? null
                : new CorpusCheckpoints(state, seen, outputs, tally, sequence, snapshot);
        DocumentRewriter rewriter =
            new DocumentRewriter(spec, inputs, tally, new UnitJudge(spec, tally, seen), outputs);
        new DocumentLoop(
                spec,
                inputs,
                stdin,
                listener,
                warnings::add,
                tally,
                outputs,
                rewriter,
                seen,
                against == null ? null : against.set(),
                checkpoints)
            .run(at, verifyStart);
        return result(started, false);
      } finally {
        outputs.close(seen == null ? null : seen.journal());
      }
    }
  }

  private CorpusResult result(long started, boolean alreadyDone) {
    return CorpusResult.of(spec, tally, seen, against, alreadyDone, started, warnings.list());
  }
}
