package dev.idem.engine.shard;

import dev.idem.core.Fingerprinter;
import dev.idem.engine.JobException;
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
import dev.idem.engine.run.PhaseProgress;
import dev.idem.engine.run.ResumableRun;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/**
 * The records' way through a split, once its state is open: read from the checkpoint's position,
 * each routed to the shard of the node that owns its key (a header line to every shard, a bad
 * record to its policy), with a checkpoint every so many records, before a record that fails the
 * split, and at the end.
 */
final class RecordRouting {
  private final SplitSpec spec;
  private final JobListener listener;
  private final ResumableRun<SplitState.Checkpoint> state;

  /** Whether a resume must check the part read before of the input it resumes in. */
  private final boolean verifyStart;

  RecordRouting(
      SplitSpec spec,
      JobListener listener,
      ResumableRun<SplitState.Checkpoint> state,
      boolean verifyStart) {
    this.spec = spec;
    this.listener = listener;
    this.state = state;
    this.verifyStart = verifyStart;
  }

  SplitJob.Result run(List<InputFile> inputs, SplitState.Checkpoint start) throws IOException {
    RecordSource.Settings settings;
    try {
      settings =
          new RecordSource.Settings(
              spec.format(),
              spec.header(),
              KeyExtractor.of(spec.key(), spec.format()),
              Fingerprinter.xxh3().withNormalizer(spec.normalizer()),
              false,
              spec.maxRecordBytes());
    } catch (IllegalArgumentException e) {
      throw new JobException(e.getMessage());
    }
    ShardWriters shards = new ShardWriters(spec);
    long total = inputs.stream().mapToLong(InputFile::size).sum();
    Path quarantinePath =
        spec.onBadRecord() instanceof BadRecordPolicy.Quarantine q ? q.file() : null;
    InputPosition at = start.position();
    try (RecordSource source =
            RecordSource.tracking(
                inputs,
                settings,
                at.fileIndex(),
                at.offset(),
                at.line(),
                at.current(),
                verifyStart);
        OutputFile quarantine =
            quarantinePath == null ? null : OutputFile.open(quarantinePath, start.quarantine())) {
      InputCursor cursor = new InputCursor(source.reads(), at, inputs.size());
      shards.open(start.shards());
      long[] perShard = start.perShard().clone();
      long records = start.records();
      long bad = start.badRecords();
      long sinceCheckpoint = 0;
      while (true) {
        RecordBatch batch = source.next();
        for (int i = 0; i < batch.count; i++) {
          switch (batch.kind[i]) {
            case RecordBatch.OK -> {
              int owner =
                  spec.ring().owner(batch.fingerprints[2 * i], batch.fingerprints[2 * i + 1]);
              shards.write(owner, batch, i);
              state.reached(SplitState.Step.RECORD_WRITTEN);
              perShard[owner]++;
              records++;
              sinceCheckpoint++;
            }
            case RecordBatch.HEADER -> shards.writeHeader(batch, i);
            case RecordBatch.BLANK -> {}
            default -> {
              if (spec.onBadRecord() instanceof BadRecordPolicy.Fail) {
                checkpoint(shards, quarantine, cursor, records, bad, perShard, false);
                throw new BadRecordException(
                    inputs.get(batch.fileIndex[i]).path(), batch.line[i], batch.problem[i], true);
              }
              if (quarantine != null) {
                String w =
                    quarantine.quarantine(
                        batch, i, inputs.get(batch.fileIndex[i]).path().toString());
                if (w != null) {
                  listener.warning(w);
                }
              }
              bad++;
              records++;
            }
          }
          cursor.handled(batch, i);
        }
        boolean end = batch.endOfInput;
        source.recycle(batch);
        listener.progress(
            new PhaseProgress(
                SplitJob.SPLIT,
                PhaseProgress.Unit.BYTES,
                end ? total : source.rawBytesRead(),
                total,
                Map.of("records", records)));
        if (end) {
          checkpoint(shards, quarantine, cursor, records, bad, perShard, true);
          return new SplitJob.Result(records, bad, perShard, false, start.records() > 0);
        }
        if (sinceCheckpoint >= spec.checkpointRecords()) {
          checkpoint(shards, quarantine, cursor, records, bad, perShard, false);
          sinceCheckpoint = 0;
        }
      }
    } finally {
      shards.close();
    }
  }

  private void checkpoint(
      ShardWriters shards,
      OutputFile quarantine,
      InputCursor cursor,
      long records,
      long bad,
      long[] perShard,
      boolean done)
      throws IOException {
    List<OutputFile.Mark> marks = shards.marks();
    OutputFile.Mark quarantineMark = quarantine == null ? OutputFile.Mark.EMPTY : quarantine.mark();
    state.reached(SplitState.Step.SHARDS_SYNCED);
    state.commit(
        new SplitState.Checkpoint(
            done ? cursor.finalPosition() : cursor.position(),
            records,
            bad,
            marks,
            perShard.clone(),
            quarantineMark,
            done));
  }
}
