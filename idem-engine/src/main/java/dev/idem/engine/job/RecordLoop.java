package dev.idem.engine.job;

import dev.idem.engine.Verdict;
import dev.idem.engine.input.InputFile;
import dev.idem.engine.output.OutputFile;
import dev.idem.engine.records.BadRecordException;
import dev.idem.engine.records.BadRecordPolicy;
import dev.idem.engine.records.RecordBatch;
import dev.idem.engine.records.RecordSource;
import dev.idem.engine.run.CrashPoints;
import dev.idem.engine.run.JobListener;
import dev.idem.engine.run.JobWarnings;
import dev.idem.engine.run.PhaseProgress;
import dev.idem.engine.run.PhaseReporter;
import dev.idem.engine.run.StateDirectory;
import dev.idem.engine.shard.ShardSpec;
import dev.idem.engine.state.Checkpoint;
import dev.idem.engine.store.StateStore;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The records' way through a dedup job, once its judge is set up: the source from the start
 * position, the outputs cut back to it, the loop over the batches with its checkpoints, and the
 * last checkpoint. A durable run (a state directory, or a history) checkpoints; others flush.
 */
final class RecordLoop {
  private final DedupJobSpec spec;
  private final InputStream stdin;
  private final OutputStream stdout;
  private final JobListener listener;
  private final CrashPoints crash;
  private final JobWarnings warnings;

  /** The run over {@code --history} being run, or {@code null}. */
  private final HistoryRun history;

  /** Whether a resume must check the part read before of the input it resumes in. */
  private final boolean verifyStart;

  RecordLoop(
      DedupJobSpec spec,
      InputStream stdin,
      OutputStream stdout,
      JobListener listener,
      CrashPoints crash,
      JobWarnings warnings,
      HistoryRun history,
      boolean verifyStart) {
    this.spec = spec;
    this.stdin = stdin;
    this.stdout = stdout;
    this.listener = listener;
    this.crash = crash;
    this.warnings = warnings;
    this.history = history;
    this.verifyStart = verifyStart;
  }

  /** Reads the records from the start position: a source, then the outputs ({@link #process}). */
  JobResult run(
      List<InputFile> inputs,
      RecordSource.Settings settings,
      DedupSetup setup,
      StateDirectory dir,
      StateStore store,
      Checkpoint start,
      long started)
      throws IOException {
    boolean durable = dir != null || history != null;
    long restoreMillis = (System.nanoTime() - started) / 1_000_000;
    try (RecordSource source =
        durable
            ? RecordSource.tracking(
                inputs,
                settings,
                start.fileIndex(),
                start.offset(),
                start.line(),
                start.read(),
                verifyStart)
            : new RecordSource(
                inputs, settings, stdin, start.fileIndex(), start.offset(), start.line())) {
      reachStart(source);
      return process(inputs, source, setup, dir, store, start, started, restoreMillis);
    }
  }

  /**
   * Fails a new job whose first record is bad under {@code --on-bad-record fail} (a wrong key, most
   * likely) before anything is written: its outputs, opened and locked but not yet emptied, are
   * left as they were ({@link OutputFile#abandonUnwritten}).
   */
  private void refuseFirstBadRecord(
      RecordBatch batch, Checkpoint start, List<InputFile> inputs, OutputFile... outputs)
      throws IOException {
    if (start.records() > 0 || !(spec.onBadRecord() instanceof BadRecordPolicy.Fail)) {
      return;
    }
    for (int i = 0; i < batch.count; i++) {
      byte kind = batch.kind[i];
      if (kind == RecordBatch.OK) {
        return;
      }
      if (kind != RecordBatch.BLANK && kind != RecordBatch.HEADER) {
        for (OutputFile o : outputs) {
          if (o != null) {
            o.abandonUnwritten();
          }
        }
        throw BadRecordException.beforeAnyKey(
            inputs.get(batch.fileIndex[i]).path(), batch.line[i], batch.problem[i]);
      }
    }
  }

  private JobResult process(
      List<InputFile> inputs,
      RecordSource source,
      DedupSetup setup,
      StateDirectory dir,
      StateStore store,
      Checkpoint start,
      long started,
      long restoreMillis)
      throws IOException {
    Judge judge = setup.judge();
    Path quarantinePath =
        spec.onBadRecord() instanceof BadRecordPolicy.Quarantine q ? q.file() : null;
    Path latePath =
        spec.window() != null && spec.window().late() instanceof WindowSpec.LatePolicy.SideOutput s
            ? s.file()
            : null;
    boolean sameQuarantine = quarantinePath != null && sameFile(start.quarantine(), quarantinePath);
    boolean sameLate =
        latePath != null && start.window() != null && sameFile(start.window().lateFile(), latePath);
    try (OutputFile out =
            spec.output() != null
                ? OutputFile.open(spec.output(), start.outputBytes(), start.tail(Checkpoint.OUTPUT))
                : OutputFile.stream("<stdout>", stdout);
        OutputFile dropped =
            spec.dropped() != null
                ? OutputFile.open(
                    spec.dropped(), start.droppedBytes(), start.tail(Checkpoint.DROPPED))
                : null;
        OutputFile quarantine =
            quarantinePath == null
                ? null
                : sameQuarantine
                    ? OutputFile.open(
                        quarantinePath, start.quarantineBytes(), start.tail(Checkpoint.QUARANTINE))
                    : OutputFile.open(quarantinePath);
        ReasonsFile reasons =
            quarantinePath == null
                ? null
                : ReasonsFile.open(
                    quarantinePath, sameQuarantine, inputs, start.fileIndex(), start.line());
        OutputFile late =
            latePath == null
                ? null
                : sameLate
                    ? OutputFile.open(
                        latePath, start.window().lateBytes(), start.tail(Checkpoint.LATE))
                    : OutputFile.open(latePath)) {
      crash.reached(DedupStep.OUTPUTS_CUT);
      RecordBatch first = source.next();
      refuseFirstBadRecord(first, start, inputs, out, dropped, quarantine, late);
      JobProgress p =
          new JobProgress(
              start,
              judge,
              new JobProgress.Outputs(
                  out,
                  dropped,
                  quarantine,
                  late,
                  quarantinePath,
                  latePath,
                  reasons == null ? null : reasons.file()),
              source.reads(),
              crash,
              crash == CrashPoints.NONE, // crash points count on checkpoints at fixed counts
              history);
      try (p) { // before the outputs close: a checkpoint in flight finishes first
        return loop(p, inputs, source, first, setup, store, dir, start, started, restoreMillis);
      }
    }
  }

  /** The job's loop over the batches, and its last checkpoint. */
  private JobResult loop(
      JobProgress p,
      List<InputFile> inputs,
      RecordSource source,
      RecordBatch first,
      DedupSetup setup,
      StateStore store,
      StateDirectory dir,
      Checkpoint start,
      long started,
      long restoreMillis)
      throws IOException {
    Judge judge = setup.judge();
    boolean durable = dir != null || history != null;
    ShardSpec shard = spec.shard();
    long otherShards = 0;
    OutputFile out = p.outputs.out();
    long firstRecordMillis = -1;
    long totalBytes = InputFile.bytesBefore(inputs, inputs.size());
    long before = InputFile.bytesBefore(inputs, start.fileIndex());
    // a resume inside an input: what the source read to get there, as stored, counts as done
    long startDone = before + (start.offset() == 0 ? 0 : source.rawBytesRead());
    listener.progress(progress(Math.min(startDone, totalBytes), totalBytes, p));
    long lastProgress = System.nanoTime();
    RecordBatch next = first;
    while (true) {
      RecordBatch batch = next != null ? next : source.next();
      next = null;
      if (firstRecordMillis < 0) {
        firstRecordMillis = (System.nanoTime() - started) / 1_000_000;
      }
      judge.prepare(batch);
      for (int i = 0; i < batch.count; i++) {
        String name = inputs.get(batch.fileIndex[i]).path();
        switch (batch.kind[i]) {
          case RecordBatch.OK -> {
            if (shard != null
                && !shard.owns(batch.fingerprints[2 * i], batch.fingerprints[2 * i + 1])) {
              otherShards++;
            } else {
              p.records++;
              handle(judge.judge(batch, i), batch, i, name, p.outputs);
            }
          }
          case RecordBatch.BLANK -> p.blankLines++;
          case RecordBatch.HEADER -> out.writeRecord(batch, i);
          default -> {
            p.records++;
            p.badRecords++;
            handleBad(batch, i, name, p, store, dir);
          }
        }
        p.position(batch, i);
        crash.reached(DedupStep.RECORD_HANDLED);
        boolean betweenRecords = !judge.decidesAhead() || i == batch.count - 1;
        if (durable && betweenRecords && p.checkpointDue(spec)) {
          p.checkpoint(false, store, false); // finished in the background
        }
      }
      boolean end = batch.endOfInput;
      source.recycle(batch);
      if (durable) {
        p.outputs.out().syncAhead();
        if (p.outputs.dropped() != null) {
          p.outputs.dropped().syncAhead();
        }
      }
      long now = System.nanoTime();
      if (now - lastProgress > PhaseReporter.PROGRESS_MILLIS * 1_000_000) {
        listener.progress(progress(before + source.rawBytesRead(), totalBytes, p));
        lastProgress = now;
      }
      if (end) {
        break;
      }
    }
    Checkpoint last;
    if (durable) {
      last = p.checkpoint(true, store, true);
    } else {
      out.flush();
      last = p.counts(true);
    }
    listener.progress(progress(totalBytes, totalBytes, p));
    if (shard != null) {
      listener.note(
          String.format(
              Locale.ROOT,
              "shard %s: %,d records owned by " + "other shards skipped in this run",
              shard.describe(),
              otherShards));
    }
    return JobResult.of(
        last,
        start,
        false,
        setup,
        spec.shared() != null,
        restoreMillis,
        started,
        firstRecordMillis,
        warnings.list());
  }

  /**
   * Waits for {@code source} to stand at the job's start position, reporting the {@link
   * DedupJob#CHECK} of what a resumed job read before it.
   */
  private void reachStart(RecordSource source) throws IOException {
    PhaseReporter check =
        new PhaseReporter(
            listener, DedupJob.CHECK, PhaseProgress.Unit.BYTES, 0, source.startCheckBytes());
    try {
      while (!source.awaitStart(PhaseReporter.PROGRESS_MILLIS)) {
        check.at(source.startChecked());
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted");
    }
    check.end();
  }

  /** Where the records are: input bytes as stored, with the records read and kept. */
  private static PhaseProgress progress(long done, long total, JobProgress p) {
    return new PhaseProgress(
        DedupJob.DEDUP,
        PhaseProgress.Unit.BYTES,
        done,
        total,
        Map.of("records", p.records, "kept", p.kept()));
  }

  /** The outputs of a running job. */
  private void handle(Verdict verdict, RecordBatch batch, int i, String name, JobProgress.Outputs o)
      throws IOException {
    switch (verdict) {
      case KEPT -> o.out().writeRecord(batch, i);
      case DUPLICATE -> {
        if (o.dropped() != null) {
          byte[] file = name.getBytes(StandardCharsets.UTF_8); // a path's bytes, not its chars
          o.dropped().write(file, 0, file.length);
          byte[] where = ("\t" + batch.line[i] + "\t").getBytes(StandardCharsets.US_ASCII);
          o.dropped().write(where, 0, where.length);
          o.dropped().write(batch.arena, batch.start[i], batch.contentLength[i]);
          o.dropped().write((byte) '\n');
        }
      }
      case LATE -> {
        WindowSpec.LatePolicy policy = spec.window().late();
        if (policy instanceof WindowSpec.LatePolicy.Emit) {
          o.out().writeRecord(batch, i);
        } else if (policy instanceof WindowSpec.LatePolicy.SideOutput) {
          o.late().writeRecord(batch, i);
        }
      }
    }
  }

  private void handleBad(
      RecordBatch batch, int i, String name, JobProgress p, StateStore store, StateDirectory dir)
      throws IOException {
    BadRecordPolicy policy = spec.onBadRecord();
    if (policy instanceof BadRecordPolicy.Fail) {
      p.badRecords--; // not handled: a rerun will meet it again
      p.records--;
      if (dir != null || history != null) {
        p.checkpoint(false, store, true);
      } else {
        p.outputs.out().flush();
      }
      throw p.records == p.badRecords
          ? BadRecordException.beforeAnyKey(name, batch.line[i], batch.problem[i])
          : new BadRecordException(
              name, batch.line[i], batch.problem[i], dir != null || history != null);
    }
    if (policy instanceof BadRecordPolicy.Quarantine) {
      ReasonsFile.write(
          p.outputs.reasons(),
          name,
          batch.line[i],
          batch.tooLongToKeep(i)
              ? batch.problem[i] + " (too long to quarantine: not in the quarantine file)"
              : batch.problem[i]);
      String w = p.outputs.quarantine().quarantine(batch, i, name);
      if (w != null) {
        warnings.add(w);
      }
    }
  }

  private static boolean sameFile(String recorded, Path path) {
    return recorded != null && Path.of(recorded).equals(path.toAbsolutePath());
  }
}
