package dev.idem.engine.corpus;

import dev.idem.engine.output.OutputFile;
import dev.idem.engine.run.InputCursor;
import dev.idem.engine.run.ResumableRun;
import java.io.IOException;
import java.nio.file.Files;

/**
 * The checkpoints a corpus job with a state commits through the kernel ({@link CorpusState}): each
 * syncs the outputs and the set's journal and notes their marks, now and then writes a snapshot of
 * the set and starts a new journal, commits the position and the counts, and only then deletes the
 * snapshot and journal it no longer names.
 */
final class CorpusCheckpoints {
  private final ResumableRun<CorpusState.Progress> state;

  /** What was seen; {@code null} when decontaminating (the evaluation sets are not state). */
  private final SeenSet seen;

  private final CorpusOutputs outputs;
  private final CorpusTally tally;

  /** The last checkpoint committed: 0 for none. */
  private long sequence;

  /** The checkpoint whose snapshot holds the set, 0 for none: the journal is named after it. */
  private long snapshot;

  CorpusCheckpoints(
      ResumableRun<CorpusState.Progress> state,
      SeenSet seen,
      CorpusOutputs outputs,
      CorpusTally tally,
      long sequence,
      long snapshot) {
    this.state = state;
    this.seen = seen;
    this.outputs = outputs;
    this.tally = tally;
    this.sequence = sequence;
    this.snapshot = snapshot;
  }

  /** Reaches one of the job's crash points (test seam). */
  void reached(CorpusState.Step step) {
    state.reached(step);
  }

  /**
   * Commits a checkpoint at {@code cursor}'s position, or with {@code complete} the last one, at
   * the end of every input.
   */
  void checkpoint(InputCursor cursor, boolean complete) throws IOException {
    if (seen != null) {
      seen.flushJournal();
      seen.checkRate(true);
    }
    OutputFile.Mark outMark = CorpusOutputs.mark(outputs.out);
    OutputFile.Mark droppedMark = CorpusOutputs.mark(outputs.dropped);
    OutputFile.Mark annotateMark = CorpusOutputs.mark(outputs.annotate);
    OutputFile.Mark quarantineMark = CorpusOutputs.mark(outputs.quarantine);
    OutputFile.Mark journalMark = seen == null ? OutputFile.Mark.EMPTY : seen.journal().mark();
    long journalCrc = seen == null ? 0 : seen.journalCrc();
    state.reached(CorpusState.Step.OUTPUTS_SYNCED);
    long next = sequence + 1;
    long snap = snapshot;
    OutputFile oldJournal = null;
    // the last checkpoint needs no snapshot: nothing resumes from it
    if (seen != null && !complete && seen.snapshotDue()) {
      seen.writeSnapshot(CorpusState.snapshot(state.directory(), next));
      state.reached(CorpusState.Step.SNAPSHOT_WRITTEN);
      oldJournal = seen.journal();
      OutputFile fresh = OutputFile.open(CorpusState.journal(state.directory(), next));
      seen.journalTo(fresh, false);
      snap = next;
      journalMark = OutputFile.Mark.EMPTY;
      journalCrc = 0;
    }
    state.commit(
        new CorpusState.Progress(
            next,
            complete ? cursor.finalPosition() : cursor.position(),
            tally.counts(),
            outMark,
            droppedMark,
            annotateMark,
            quarantineMark,
            seen == null ? null : seen.structure().word(),
            seen == null ? 0 : seen.expected(),
            snap,
            journalMark,
            journalCrc,
            complete));
    sequence = next;
    if (snap != snapshot) {
      // only now: until the commit, a crash resumes from the old snapshot and journal
      long old = snapshot;
      snapshot = snap;
      oldJournal.close();
      Files.deleteIfExists(CorpusState.journal(state.directory(), old));
      Files.deleteIfExists(CorpusState.snapshot(state.directory(), old));
    }
  }
}
