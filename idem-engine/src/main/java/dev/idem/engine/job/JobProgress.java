package dev.idem.engine.job;

import dev.idem.engine.DedupStats;
import dev.idem.engine.output.OutputFile;
import dev.idem.engine.records.InputRead;
import dev.idem.engine.records.InputReads;
import dev.idem.engine.records.RecordBatch;
import dev.idem.engine.run.CrashPoints;
import dev.idem.engine.run.Json;
import dev.idem.engine.state.Checkpoint;
import dev.idem.engine.store.StateStore;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * Where a running dedup job is (input position, counts, outputs) and the checkpoint procedure of
 * docs/DESIGN.md, section 3.1: sync the outputs, then one atomic commit of the judge's state and
 * the position.
 *
 * <p>The job's thread prepares a checkpoint (flushes the outputs to the OS, notes their lengths and
 * tails, collects the judge's changes and the position into the commit) and a background thread
 * finishes it (forces the outputs to disk, writes the commit, lets the judge clean up) while the
 * job reads on. At most one is in flight: the next checkpoint, the last one, and the end of the job
 * wait for it and throw what it threw. Records after the checkpoint only append to the outputs past
 * the lengths it notes, so its order (outputs on disk before the commit) is unchanged.
 */
final class JobProgress implements AutoCloseable {

  /**
   * The files a job writes, and the paths of those it may name in a checkpoint; {@code reasons} is
   * the quarantine file's {@link ReasonsFile}, synced with the outputs but cut back by its content.
   */
  record Outputs(
      OutputFile out,
      OutputFile dropped,
      OutputFile quarantine,
      OutputFile late,
      Path quarantinePath,
      Path latePath,
      OutputFile reasons) {}

  final Checkpoint start;
  final Judge judge;
  final Outputs outputs;
  private final CrashPoints crash;

  /**
   * Whether a due checkpoint waits while the previous one is still in flight. Off, checkpoints come
   * at the same record counts on every run, which the protocol tests' crash points count on.
   */
  private final boolean deferWhileInFlight;

  /** What the job read, to keep in checkpoints; {@code null} without a state. */
  private final InputReads reads;

  /** Where a run over a history commits its checkpoints instead of a store, or {@code null}. */
  private final HistoryRun history;

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

  /** Finishes checkpoints off the job's thread. */
  private final ExecutorService committer =
      Executors.newSingleThreadExecutor(
          r -> {
            Thread t = new Thread(r, "idem-checkpoint");
            t.setDaemon(true);
            return t;
          });

  /** The checkpoint being finished, or {@code null}. */
  private Future<?> inFlight;

  JobProgress(
      Checkpoint start,
      Judge judge,
      Outputs outputs,
      InputReads reads,
      CrashPoints crash,
      boolean deferWhileInFlight,
      HistoryRun history) {
    this.start = start;
    this.history = history;
    this.deferWhileInFlight = deferWhileInFlight;
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

  /**
   * Whether a checkpoint is due: enough records or time since the last one, and the last one
   * landed. One still in flight means the disk is behind the job: the job reads on rather than
   * wait, and checkpoints as soon as the disk has caught up (the last checkpoint waits).
   */
  boolean checkpointDue(DedupJobSpec spec) {
    if (deferWhileInFlight && inFlight != null && !inFlight.isDone()) {
      return false;
    }
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
        tails,
        judge.deltaSequence());
  }

  /**
   * The checkpoint procedure: prepared here, finished in the background ({@code finished} false) or
   * before returning ({@code finished} true: the last checkpoint, and one before the job stops at a
   * bad record). Returns the checkpoint, written or being written.
   */
  Checkpoint checkpoint(boolean complete, StateStore store, boolean finished) throws IOException {
    awaitInFlight();
    List<OutputFile> files = new ArrayList<>(4);
    Map<String, Long> tails = new HashMap<>();
    flush(Checkpoint.OUTPUT, outputs.out(), tails, files);
    flush(Checkpoint.DROPPED, outputs.dropped(), tails, files);
    flush(Checkpoint.QUARANTINE, outputs.quarantine(), tails, files);
    flush(Checkpoint.LATE, outputs.late(), tails, files);
    if (outputs.reasons() != null) {
      outputs.reasons().flush(); // synced with the outputs; no length or tail in the checkpoint
      files.add(outputs.reasons());
    }
    sequence++;
    if (history != null) {
      return commitToHistory(complete, tails, files);
    }
    StateStore.Commit commit = store.commit();
    Checkpoint cp;
    try {
      judge.checkpoint(sequence, commit, complete);
      crash.reached(DedupStep.JOURNAL_BATCHED);
      int ended = reads == null ? fileIndex : endedWritten;
      for (; ended < fileIndex; ended++) { // each once, as the job gets past it
        commit.meta(InputReads.metaKey(ended), Json.write(reads.ended(ended)));
      }
      cp = counts(complete, tails);
      commit.meta("checkpoint", Json.write(cp));
      endedWritten = ended;
    } catch (IOException | RuntimeException | Error e) {
      commit.close();
      throw e;
    }
    inFlight =
        committer.submit(
            () -> {
              try (commit) {
                for (OutputFile f : files) {
                  f.force();
                }
                crash.reached(DedupStep.OUTPUTS_SYNCED);
                commit.write(true);
              }
              crash.reached(DedupStep.COMMITTED);
              judge.committed();
              crash.reached(DedupStep.CHECKPOINT_DONE);
              return null;
            });
    if (finished || judge.readsItsCheckpoints()) {
      awaitInFlight();
    }
    recordsSinceCheckpoint = 0;
    lastCheckpointNanos = System.nanoTime();
    return cp;
  }

  /**
   * A checkpoint of a run over a history, on the job's thread: the outputs synced, then the keys
   * kept since the last one committed with the position and marks. Not in the background, since the
   * commit takes the keys marked so far, which must be exactly those before the position.
   */
  private Checkpoint commitToHistory(
      boolean complete, Map<String, Long> tails, List<OutputFile> files) throws IOException {
    Checkpoint cp = counts(complete, tails);
    for (OutputFile f : files) {
      f.force();
    }
    crash.reached(DedupStep.OUTPUTS_SYNCED);
    history.commit(cp, reads);
    crash.reached(DedupStep.COMMITTED);
    recordsSinceCheckpoint = 0;
    lastCheckpointNanos = System.nanoTime();
    return cp;
  }

  /** Waits for the checkpoint in flight, and throws what it threw. */
  void awaitInFlight() throws IOException {
    if (inFlight == null) {
      return;
    }
    Future<?> f = inFlight;
    inFlight = null;
    try {
      f.get();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted while a checkpoint was being written", e);
    } catch (ExecutionException e) {
      Throwable cause = e.getCause();
      if (cause instanceof IOException io) {
        throw io;
      }
      if (cause instanceof RuntimeException r) {
        throw r;
      }
      if (cause instanceof Error err) {
        throw err;
      }
      throw new IOException(cause);
    }
  }

  /**
   * Lets a checkpoint in flight finish (a failing job leaves its state as consistent as a killed
   * one), so that nothing writes to the store or the outputs once the job closes them.
   */
  @Override
  public void close() {
    try {
      awaitInFlight();
    } catch (IOException | RuntimeException e) {
      // the job is failing already with its own error
    } finally {
      committer.shutdown();
    }
  }

  private static void flush(
      String role, OutputFile f, Map<String, Long> tails, List<OutputFile> files)
      throws IOException {
    if (f != null) {
      f.flush();
      Long tail = f.tailChecksum();
      if (tail != null) {
        tails.put(role, tail);
      }
      files.add(f);
    }
  }
}
