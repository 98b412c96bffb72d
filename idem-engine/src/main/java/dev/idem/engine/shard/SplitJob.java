package dev.idem.engine.shard;

import dev.idem.engine.JobException;
import dev.idem.engine.input.Compression;
import dev.idem.engine.input.InputFile;
import dev.idem.engine.records.BadRecordException;
import dev.idem.engine.records.InputCheck;
import dev.idem.engine.records.RecordFormat;
import dev.idem.engine.run.CrashPoints;
import dev.idem.engine.run.JobListener;
import dev.idem.engine.run.JobReport;
import dev.idem.engine.run.ResumableRun;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * {@code idem split}: routes every record to the shard file of the node that owns its key, so that
 * exact dedup can run per shard on separate machines and the union of their outputs equals a global
 * dedup. Records keep their bytes and their input order within a shard.
 *
 * <p>Resumable through the job kernel ({@link ResumableRun}): a checkpoint flushes and syncs every
 * shard file (compressed, it first ends the current gzip member or zstd frame, so a file cut back
 * to a checkpoint decompresses whole), then atomically writes the input position and every shard's
 * mark (length and tail checksum) to {@code DIR/.idem-split/checkpoint.json}. A rerun of the same
 * command cuts the shard files back to their marks, refusing a shard changed since, and reads on
 * from that position, once its inputs are found to hold what the split read of them ({@link
 * InputCheck}).
 *
 * <p>This class is the start: the state opened and the resume's checks. Its parts are {@link
 * SplitPreconditions} (refusals before anything is written), {@link SplitState} (the checkpoint and
 * its layout), {@link RecordRouting} (the records to their shards, with the checkpoints) and {@link
 * ShardWriters} (the shard files).
 */
public final class SplitJob {

  /** What a split did: records per shard (this run and before), and bad records skipped. */
  public record Result(
      long records, long badRecords, long[] perShard, boolean alreadyComplete, boolean resumed)
      implements JobReport {

    @Override
    public Map<String, Object> report() {
      Map<String, Object> m = new LinkedHashMap<>();
      m.put("records", records);
      m.put("bad_records", badRecords);
      m.put("shards", perShard.length);
      m.put("records_per_shard", java.util.Arrays.stream(perShard).boxed().toList());
      m.put("already_complete", alreadyComplete);
      m.put("resumed", resumed);
      return m;
    }
  }

  /** The phase a split reports: input bytes as stored, with the records split. */
  public static final String SPLIT = "split";

  private final SplitSpec spec;
  private final JobListener listener;
  private final CrashPoints crash;

  private SplitJob(SplitSpec spec, JobListener listener, CrashPoints crash) {
    this.spec = spec;
    this.listener = listener;
    this.crash = crash;
  }

  /**
   * Splits the inputs, or resumes a split killed before it finished.
   *
   * @throws BadRecordException for a record without a usable key, unless skipping them
   * @throws JobException when the command differs from the split in the directory
   */
  public static Result run(SplitSpec spec, JobListener listener) throws IOException {
    return run(spec, listener, CrashPoints.configured());
  }

  /** {@link #run}, reaching {@code crash} at each step (test seam, see {@link CrashPoints}). */
  static Result run(SplitSpec spec, JobListener listener, CrashPoints crash) throws IOException {
    return new SplitJob(spec, listener, crash).run();
  }

  /**
   * The file of shard {@code i}: {@code shard-00000.jsonl}, ... with {@code .gz} or {@code .zst}
   * when compressed.
   */
  public static String shardFileName(int i, RecordFormat format, Compression compression) {
    String ext =
        switch (format) {
          case JSONL -> ".jsonl";
          case CSV -> ".csv";
          case TSV -> ".tsv";
          case LINES -> ".txt";
          case PARQUET -> throw new IllegalArgumentException("split reads text inputs only");
        };
    return String.format(Locale.ROOT, "shard-%05d%s%s", i, ext, compression.suffix());
  }

  /** Where a split into {@code directory} keeps its checkpoints. */
  public static Path stateDirectory(Path directory) {
    return directory.resolve(SplitState.DIRECTORY);
  }

  private Result run() throws IOException {
    List<InputFile> inputs = InputFile.expand(spec.inputs());
    InputFile.requireFiles(inputs, "split resumes by position in its inputs");
    int n = spec.ring().size();
    Path stateDir = stateDirectory(spec.directory());
    SplitPreconditions.check(spec, stateDir);
    Files.createDirectories(spec.directory());
    if (!SplitState.exists(stateDir)) {
      SplitPreconditions.requireNoShardFiles(
          spec); // before the state: a directory of someone else's shards
    }
    // the first checkpoint is committed before any shard file exists, so a kill from then on
    // leaves a resumable split
    try (ResumableRun<SplitState.Checkpoint> state =
        ResumableRun.open(
            SplitState.LAYOUT,
            stateDir,
            SplitState.identity(spec, inputs),
            SplitState.Checkpoint.start(n),
            crash)) {
      SplitState.Checkpoint cp = state.checkpoint();
      boolean verifyStart = false;
      if (state.resumed()) {
        if (cp.complete()) {
          return new Result(cp.records(), cp.badRecords(), cp.perShard(), true, true);
        }
        InputCheck.Outcome o =
            state.checkInputs(inputs, cp.position(), spec.verifyInputs(), listener);
        verifyStart = o.verifyStart();
        cp = SplitState.withPosition(cp, ResumableRun.vouched(cp.position(), o));
      }
      return new RecordRouting(spec, listener, state, verifyStart).run(inputs, cp);
    }
  }
}
