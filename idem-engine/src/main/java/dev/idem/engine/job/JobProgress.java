package dev.idem.engine.job;

import dev.idem.engine.DedupStats;
import dev.idem.engine.records.InputRead;
import dev.idem.engine.records.InputReads;
import dev.idem.engine.records.OutputFile;
import dev.idem.engine.records.RecordBatch;
import dev.idem.engine.state.Checkpoint;
import dev.idem.engine.state.Json;
import dev.idem.engine.store.StateStore;
import java.io.IOException;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;

/**
 * Where a running dedup job is (input position, counts, outputs) and the checkpoint procedure of
 * docs/DESIGN.md, section 3.1: sync the outputs, then one atomic commit of the judge's state and
 * the position.
 */
final class JobProgress {

  /** The files a job writes, and the paths of those it may name in a checkpoint. */
  record Outputs(
      OutputFile out,
      OutputFile dropped,
      OutputFile quarantine,
      OutputFile late,
      Path quarantinePath,
      Path latePath) {}

  final Checkpoint start;
  final Judge judge;
  final Outputs outputs;
  private final CrashPoints crash;

  /** What the job read, to keep in checkpoints; {@code null} without a state. */
  private final InputReads reads;

  /** Inputs before this one have their {@link InputRead} in the state already. */
  private int endedWritten;

  long records;
  long blankLines;
  long badRecords;
  int fileIndex;
  long offset;
  long line;
  long sequence;
  long recordsSinceCheckpoint;
  long lastCheckpointNanos = System.nanoTime();

  JobProgress(Checkpoint start, Judge judge, Outputs outputs, InputReads reads, CrashPoints crash) {
    this.start = start;
    this.judge = judge;
    this.outputs = outputs;
    this.crash = crash;
    this.reads = reads;
    this.endedWritten = start.fileIndex();
    this.records = start.records();
    this.blankLines = start.blankLines();
    this.badRecords = start.badRecords();
    this.fileIndex = start.fileIndex();
    this.offset = start.offset();
    this.line = start.line();
    this.sequence = start.sequence();
  }

  long kept() {
    return start.stats().kept() + judge.stats().kept();
  }

  /** The job is done with record {@code i} of {@code batch}. */
  void position(RecordBatch batch, int i) {
    fileIndex = batch.fileIndex[i];
    offset = batch.endOffset[i];
    line = batch.endLine[i];
    recordsSinceCheckpoint++;
    if (reads != null) {
      reads.handled(batch, i);
    }
  }

  boolean checkpointDue(DedupJobSpec spec) {
    if (recordsSinceCheckpoint >= spec.checkpointRecords()) {
      return true;
    }
    return (recordsSinceCheckpoint & 1023) == 0
        && System.nanoTime() - lastCheckpointNanos >= spec.checkpointInterval().toNanos();
  }

  Checkpoint counts(boolean complete) {
    return counts(complete, Map.of());
  }

  private Checkpoint counts(boolean complete, Map<String, Long> tails) {
    Outputs o = outputs;
    DedupStats stats = start.stats().plus(judge.stats());
    return new Checkpoint(
        sequence,
        fileIndex,
        offset,
        line,
        o.out().length(),
        o.dropped() == null ? 0 : o.dropped().length(),
        o.quarantinePath() == null ? start.quarantine() : OutputFile.absolute(o.quarantinePath()),
        o.quarantine() == null ? 0 : o.quarantine().length(),
        judge.snapshotSequence(),
        records,
        blankLines,
        badRecords,
        stats,
        judge.window(OutputFile.absolute(o.latePath()), o.late() == null ? 0 : o.late().length()),
        complete,
        reads == null ? null : reads.current(),
        tails);
  }

  /** The checkpoint procedure; returns the checkpoint written. */
  Checkpoint checkpoint(boolean complete, StateStore store) throws IOException {
    Map<String, Long> tails = new HashMap<>();
    sync(Checkpoint.OUTPUT, outputs.out(), tails);
    sync(Checkpoint.DROPPED, outputs.dropped(), tails);
    sync(Checkpoint.QUARANTINE, outputs.quarantine(), tails);
    sync(Checkpoint.LATE, outputs.late(), tails);
    crash.reached(CrashPoints.Step.OUTPUTS_SYNCED);
    sequence++;
    Checkpoint cp;
    try (StateStore.Commit commit = store.commit()) {
      judge.checkpoint(sequence, commit, complete);
      crash.reached(CrashPoints.Step.JOURNAL_BATCHED);
      int ended = reads == null ? fileIndex : endedWritten;
      for (; ended < fileIndex; ended++) { // each once, as the job gets past it
        commit.meta(InputReads.metaKey(ended), Json.write(reads.ended(ended)));
      }
      cp = counts(complete, tails);
      commit.meta("checkpoint", Json.write(cp)).write(true);
      endedWritten = ended;
    }
    crash.reached(CrashPoints.Step.COMMITTED);
    judge.committed();
    crash.reached(CrashPoints.Step.CHECKPOINT_DONE);
    recordsSinceCheckpoint = 0;
    lastCheckpointNanos = System.nanoTime();
    return cp;
  }

  private static void sync(String role, OutputFile f, Map<String, Long> tails) throws IOException {
    if (f != null) {
      f.sync();
      Long tail = f.tailChecksum();
      if (tail != null) {
        tails.put(role, tail);
      }
    }
  }
}
