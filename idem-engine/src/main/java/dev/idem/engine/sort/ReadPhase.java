package dev.idem.engine.sort;

import dev.idem.core.Fingerprinter;
import dev.idem.engine.input.InputFile;
import dev.idem.engine.output.OutputFile;
import dev.idem.engine.records.BadRecordException;
import dev.idem.engine.records.BadRecordPolicy;
import dev.idem.engine.records.KeyExtractor;
import dev.idem.engine.records.RecordBatch;
import dev.idem.engine.records.RecordSource;
import dev.idem.engine.run.InputCursor;
import dev.idem.engine.run.InputPosition;
import dev.idem.engine.run.JobListener;
import dev.idem.engine.run.JobWarnings;
import dev.idem.engine.run.PhaseProgress;
import dev.idem.engine.run.ResumableRun;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;

/**
 * Phase 1 of sort-dedup, and what it read: records in input order, numbered, into a sort buffer
 * that is spilled as a sorted run whenever it is full, with the counts, the header and the input
 * position that every checkpoint of the job keeps. A resumed job takes these from its checkpoint,
 * whether it reads on or goes straight to merging.
 */
final class ReadPhase {

  private static final long PROGRESS_NANOS = 500_000_000L;

  private final SortDedupSpec spec;
  private final SortPlan plan;
  private final InputStream stdin;
  private final JobListener listener;
  private final JobWarnings warnings;

  /** The resumable job's state, or {@code null}. */
  private final ResumableRun<SortState.Progress> state;

  /** Whether the resumed job must check the part of its input read before. */
  private final boolean verifyStart;

  private final SortedRuns runs;
  private byte[] header;
  private long records;
  private long blankLines;
  private long badRecords;
  private long ordinal;
  private long bytesSeen;
  private OutputFile quarantine;

  /** Where the job is in its inputs: after the last record handled, with what it read. */
  private InputCursor cursor;

  /** Where a resumed job starts reading, with what it read before. */
  private InputPosition start = InputPosition.START;

  ReadPhase(
      SortDedupSpec spec,
      SortPlan plan,
      InputStream stdin,
      JobListener listener,
      JobWarnings warnings,
      ResumableRun<SortState.Progress> state,
      boolean verifyStart) {
    this.spec = spec;
    this.plan = plan;
    this.runs =
        new SortedRuns(
            spec.exactKey() ? RunKind.EXACT_KEY : RunKind.FINGERPRINT,
            plan,
            spec.keep() == SortDedupSpec.Keep.LAST);
    this.stdin = stdin;
    this.listener = listener;
    this.warnings = warnings;
    this.state = state;
    this.verifyStart = verifyStart;
  }

  /** Takes the counts, position and runs of the checkpoint a job resumes from. */
  void restore(SortState.Progress from) {
    records = from.records();
    blankLines = from.blankLines();
    badRecords = from.badRecords();
    ordinal = from.ordinal();
    bytesSeen = from.bytesSeen();
    header = from.header();
    start = from.position();
    runs.restore(SortState.runFiles(state, from));
  }

  /**
   * Reads the inputs to their end, from the start or from the checkpoint {@code from}, into a sort
   * buffer split between records and index by {@code meanRecordBytes}.
   */
  void read(
      List<InputFile> inputs,
      KeyExtractor extractor,
      Fingerprinter fingerprinter,
      RunDirectory dir,
      SortState.Progress from,
      int meanRecordBytes)
      throws IOException {
    runs.startBuffer(meanRecordBytes);
    if (from != null) {
      restore(from);
    }
    Path quarantinePath =
        spec.onBadRecord() instanceof BadRecordPolicy.Quarantine q ? q.file() : null;
    if (quarantinePath != null) {
      quarantine =
          OutputFile.open(quarantinePath, from == null ? OutputFile.Mark.EMPTY : from.quarantine());
    }
    long total = inputs.stream().mapToLong(f -> Math.max(0, f.size())).sum();
    long lastProgress = System.nanoTime();
    RecordSource.Settings settings =
        new RecordSource.Settings(
            spec.format(),
            spec.header(),
            extractor,
            fingerprinter,
            spec.exactKey(),
            spec.maxRecordBytes());
    try (RecordSource source =
        state == null
            ? new RecordSource(
                inputs,
                settings,
                stdin,
                start.fileIndex(),
                start.offset(),
                start.line(),
                plan.batchBytes(),
                plan.batchRecords())
            : RecordSource.tracking(
                inputs,
                settings,
                start.fileIndex(),
                start.offset(),
                start.line(),
                start.current(),
                verifyStart,
                plan.batchBytes(),
                plan.batchRecords())) {
      if (state != null) {
        cursor = new InputCursor(source.reads(), start, inputs.size());
      }
      while (true) {
        RecordBatch batch = source.next();
        for (int i = 0; i < batch.count; i++) {
          switch (batch.kind[i]) {
            case RecordBatch.OK -> {
              add(batch, i, dir); // before the count: a checkpoint in it is before this record
              records++;
            }
            case RecordBatch.BLANK -> blankLines++;
            case RecordBatch.HEADER -> header = recordBytes(batch, i);
            default -> {
              bad(batch, i, inputs.get(batch.fileIndex[i]).path(), dir);
              records++;
              badRecords++;
            }
          }
          if (cursor != null) {
            cursor.handled(batch, i);
          }
        }
        boolean end = batch.endOfInput;
        source.recycle(batch);
        long now = System.nanoTime();
        if (end || now - lastProgress > PROGRESS_NANOS) {
          listener.progress(
              new PhaseProgress(
                  SortDedupJob.READ,
                  PhaseProgress.Unit.BYTES,
                  end ? total : source.rawBytesRead(),
                  total,
                  java.util.Map.of("records", records, "runs", (long) runs.count())));
          lastProgress = now;
        }
        if (end) {
          break;
        }
      }
    }
  }

  private void add(RecordBatch batch, int i, RunDirectory dir) throws IOException {
    long hi;
    long lo;
    byte[] key = null;
    int keyLength = 0;
    if (spec.exactKey()) {
      key = batch.keys[i];
      keyLength = key.length;
      hi = RunBuffer.keyPrefix(key, 0, keyLength, 0);
      lo = RunBuffer.keyPrefix(key, 0, keyLength, 8);
    } else {
      hi = batch.fingerprints[2 * i];
      lo = batch.fingerprints[2 * i + 1];
    }
    long position = ordinal++;
    int length = batch.contentLength[i] + batch.terminatorLength[i];
    boolean newline = batch.terminatorLength[i] == 0; // the last line of an input without one
    bytesSeen += length + keyLength;
    if (runs.add(hi, lo, position, key, keyLength, batch.arena, batch.start[i], length, newline)) {
      return;
    }
    if (runs.spillIfAny(dir)) {
      if (state != null) {
        state.reached(SortState.Step.RUN_SPILLED);
        state.commit(progress(SortState.Phase.READING, runs.list(), position, 0, 0));
      }
      if (runs.add(
          hi, lo, position, key, keyLength, batch.arena, batch.start[i], length, newline)) {
        return;
      }
    }
    // larger than the whole buffer: a run of its own
    runs.writeAlone(dir, hi, lo, position, key, keyLength, recordBytes(batch, i));
  }

  private static byte[] recordBytes(RecordBatch batch, int i) {
    int length = batch.contentLength[i] + batch.terminatorLength[i];
    byte[] record =
        Arrays.copyOfRange(
            batch.arena,
            batch.start[i],
            batch.start[i] + length + (batch.terminatorLength[i] == 0 ? 1 : 0));
    if (batch.terminatorLength[i] == 0) {
      record[length] = '\n';
    }
    return record;
  }

  /**
   * The bad-record policies of {@code dedup}, with its messages. Under {@code fail} a resumable job
   * spills what it holds and checkpoints before the record, so that a rerun with another policy
   * goes on from there.
   */
  private void bad(RecordBatch batch, int i, String name, RunDirectory dir) throws IOException {
    BadRecordPolicy policy = spec.onBadRecord();
    if (policy instanceof BadRecordPolicy.Fail) {
      if (state != null) {
        runs.spillIfAny(dir);
        state.commit(progress(SortState.Phase.READING, runs.list(), ordinal, 0, 0));
      }
      throw new BadRecordException(name, batch.line[i], batch.problem[i], state != null);
    }
    if (policy instanceof BadRecordPolicy.Quarantine) {
      String w = quarantine.quarantine(batch, i, name);
      if (w != null) {
        warnings.add(w);
      }
    }
  }

  /** The runs written, and the sort buffer. */
  SortedRuns runs() {
    return runs;
  }

  /** A checkpoint of what was read, in {@code phase}, naming the runs {@code now}. */
  SortState.Progress progress(
      SortState.Phase phase, List<RunFile> now, long nextOrdinal, long kept, long outputBytes)
      throws IOException {
    long quarantineBytes = 0;
    Long tail = null;
    if (quarantine != null) {
      quarantine.sync();
      quarantineBytes = quarantine.length();
      tail = quarantine.tailChecksum();
    }
    return new SortState.Progress(
        phase,
        position(phase),
        nextOrdinal,
        records,
        blankLines,
        badRecords,
        bytesSeen,
        new OutputFile.Mark(quarantineBytes, tail),
        header,
        SortState.named(now),
        kept,
        outputBytes);
  }

  /**
   * Where the job stands in its inputs: after the last record handled while reading; once read,
   * every input read to its end (what a resume checks then).
   */
  private InputPosition position(SortState.Phase phase) {
    if (cursor == null) {
      return start; // not reading in this run: as the checkpoint it resumed from says
    }
    return phase == SortState.Phase.READING ? cursor.position() : cursor.finalPosition();
  }

  byte[] header() {
    return header;
  }

  long records() {
    return records;
  }

  long blankLines() {
    return blankLines;
  }

  long badRecords() {
    return badRecords;
  }

  /** The position number the next record gets: the records numbered so far. */
  long ordinal() {
    return ordinal;
  }

  /** The mean size of a record with its key so far, to size the merge's position buffer. */
  int meanRecordBytes() {
    return (int) Math.min(1 << 20, bytesSeen / Math.max(1, ordinal));
  }

  /** Closes the quarantine file, if open. */
  void closeQuarantine() throws IOException {
    if (quarantine != null) {
      quarantine.close();
    }
  }
}
