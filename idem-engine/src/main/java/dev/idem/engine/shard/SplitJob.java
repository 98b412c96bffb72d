package dev.idem.engine.shard;

import dev.idem.core.Fingerprinter;
import dev.idem.core.KeyNormalizer;
import dev.idem.engine.JobException;
import dev.idem.engine.input.Compression;
import dev.idem.engine.input.InputFile;
import dev.idem.engine.input.LineReader;
import dev.idem.engine.output.OutputFile;
import dev.idem.engine.output.OutputGuard;
import dev.idem.engine.records.BadRecordException;
import dev.idem.engine.records.BadRecordPolicy;
import dev.idem.engine.records.InputCheck;
import dev.idem.engine.records.InputRead;
import dev.idem.engine.records.KeyExtractor;
import dev.idem.engine.records.KeySpec;
import dev.idem.engine.records.RecordBatch;
import dev.idem.engine.records.RecordFormat;
import dev.idem.engine.records.RecordSource;
import dev.idem.engine.records.VerifyInputs;
import dev.idem.engine.run.CrashPoints;
import dev.idem.engine.run.InputCursor;
import dev.idem.engine.run.InputPosition;
import dev.idem.engine.run.JobIdentity;
import dev.idem.engine.run.JobListener;
import dev.idem.engine.run.JobReport;
import dev.idem.engine.run.PhaseProgress;
import dev.idem.engine.run.ResumableRun;
import dev.idem.engine.run.StateFile;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

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
 */
public final class SplitJob {

  /**
   * What a split is told. Made with {@link #builder}, which starts every option at {@code idem
   * split}'s default.
   *
   * @param inputs files, directories or globs, as given
   * @param format record layout
   * @param key what identifies a record
   * @param header whether CSV/TSV inputs start with a header line
   * @param normalizer applied to keys before hashing
   * @param maxRecordBytes longer records are bad records
   * @param ring the consistent-hash ring: one shard file per node
   * @param directory where the shard files (and the split's state) go
   * @param compression how shard files are compressed ({@code .gz}, {@code .zst} names)
   * @param onBadRecord what to do with a record without a usable key
   * @param checkpointRecords records between checkpoints
   * @param verifyInputs how a resume checks that the inputs still hold what was read
   */
  public record Spec(
      List<String> inputs,
      RecordFormat format,
      KeySpec key,
      boolean header,
      KeyNormalizer normalizer,
      int maxRecordBytes,
      ConsistentHashRing ring,
      Path directory,
      Compression compression,
      BadRecordPolicy onBadRecord,
      long checkpointRecords,
      VerifyInputs verifyInputs) {

    public Spec {
      inputs = List.copyOf(inputs);
      requireCheckpointRecords(checkpointRecords);
      verifyInputs = verifyInputs == null ? VerifyInputs.SAMPLE : verifyInputs;
    }

    private static long requireCheckpointRecords(long records) {
      if (records < 1) {
        throw new IllegalArgumentException(
            "--checkpoint-every must be at least 1 record, got " + records);
      }
      return records;
    }

    /**
     * A {@link Builder} for a split of {@code inputs} (files, directories or globs) by {@code key}
     * into one shard file per node of {@code ring} in {@code directory}, every other option at
     * {@code idem split}'s default until set.
     *
     * @throws IllegalArgumentException when there is no input
     */
    public static Builder builder(
        List<String> inputs, KeySpec key, ConsistentHashRing ring, Path directory) {
      return new Builder(inputs, key, ring, directory);
    }

    /** Builds a {@link Spec}, every option at {@code idem split}'s default until set. */
    public static final class Builder {
      private final List<String> inputs;
      private final KeySpec key;
      private final ConsistentHashRing ring;
      private final Path directory;
      private RecordFormat format;
      private Boolean header;
      private KeyNormalizer normalizer = KeyNormalizer.identity();
      private int maxRecordBytes = 16 << 20;
      private Compression compression = Compression.NONE;
      private BadRecordPolicy onBadRecord = new BadRecordPolicy.Fail();
      private long checkpointRecords = 100_000;
      private VerifyInputs verifyInputs = VerifyInputs.SAMPLE;

      private Builder(List<String> inputs, KeySpec key, ConsistentHashRing ring, Path directory) {
        this.inputs = List.copyOf(inputs);
        if (this.inputs.isEmpty()) {
          throw new IllegalArgumentException("split needs at least one input file");
        }
        this.key = Objects.requireNonNull(key, "key");
        this.ring = Objects.requireNonNull(ring, "ring");
        this.directory = Objects.requireNonNull(directory, "directory");
      }

      /** Sets the record layout; default: what the key implies ({@link RecordFormat#impliedBy}). */
      public Builder format(RecordFormat v) {
        format = Objects.requireNonNull(v, "format");
        return this;
      }

      /**
       * Sets whether CSV/TSV inputs start with a header line; default: when the column is named.
       */
      public Builder header(boolean v) {
        header = v;
        return this;
      }

      /** Sets the key normalisation applied before hashing; default: none (identity). */
      public Builder normalizer(KeyNormalizer v) {
        normalizer = Objects.requireNonNull(v, "normalizer");
        return this;
      }

      /**
       * Sets the length above which a record is a bad record, 1 byte to 64 MiB; default: 16 MiB.
       *
       * @throws IllegalArgumentException outside 1 byte to 64 MiB
       */
      public Builder maxRecordBytes(int v) {
        if (v < 1 || v > LineReader.MAX_LINE_BYTES) {
          throw new IllegalArgumentException(
              "--max-record-bytes must be from 1 to 64m: records are held whole in memory; longer "
                  + "ones are bad records (see --on-bad-record), got "
                  + v);
        }
        maxRecordBytes = v;
        return this;
      }

      /** Sets how shard files are compressed; default: {@link Compression#NONE}. */
      public Builder compression(Compression v) {
        compression = Objects.requireNonNull(v, "compression");
        return this;
      }

      /** Sets what becomes of records without a usable key; default: fail. */
      public Builder onBadRecord(BadRecordPolicy v) {
        onBadRecord = Objects.requireNonNull(v, "onBadRecord");
        return this;
      }

      /**
       * Sets the records between checkpoints, at least 1; default: 100,000.
       *
       * @throws IllegalArgumentException below 1
       */
      public Builder checkpointRecords(long v) {
        checkpointRecords = requireCheckpointRecords(v);
        return this;
      }

      /** Sets how a resume checks its inputs; default: {@link VerifyInputs#SAMPLE}. */
      public Builder verifyInputs(VerifyInputs v) {
        verifyInputs = Objects.requireNonNull(v, "verifyInputs");
        return this;
      }

      /** The spec. */
      public Spec build() {
        return new Spec(
            inputs,
            format != null ? format : RecordFormat.impliedBy(key, inputs),
            key,
            header != null ? header : key instanceof KeySpec.Column c && c.name() != null,
            normalizer,
            maxRecordBytes,
            ring,
            directory,
            compression,
            onBadRecord,
            checkpointRecords,
            verifyInputs);
      }
    }
  }

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

  /**
   * A split's checkpoint.
   *
   * @param shards each shard file's mark
   * @param perShard records written to each shard
   */
  record Checkpoint(
      InputPosition position,
      long records,
      long badRecords,
      List<OutputFile.Mark> shards,
      long[] perShard,
      OutputFile.Mark quarantine,
      boolean complete) {

    static Checkpoint start(int shards) {
      return new Checkpoint(
          InputPosition.START,
          0,
          0,
          java.util.Collections.nCopies(shards, OutputFile.Mark.EMPTY),
          new long[shards],
          OutputFile.Mark.EMPTY,
          false);
    }
  }

  /** A split's crash points, besides the kernel's. */
  enum Step {
    /** A record written to its shard. */
    RECORD_WRITTEN,
    /** Every shard synced for a checkpoint, not yet committed. */
    SHARDS_SYNCED
  }

  static final String STATE = ".idem-split";
  private static final String CHECKPOINT = "checkpoint.json";

  /** Version 2: the first in the state-file encoding, with the shards' tail checksums. */
  static final ResumableRun.Layout<Checkpoint> LAYOUT =
      new ResumableRun.Layout<>(
          "split", CHECKPOINT, 2, Checkpoint.class, SplitJob::legacy, c -> true);

  private final Spec spec;
  private final JobListener listener;

  private final CrashPoints crash;
  private boolean verifyStart;

  /** Hears about progress, and about what the user should know. */
  /** The phase a split reports: input bytes as stored, with the records split. */
  public static final String SPLIT = "split";

  private SplitJob(Spec spec, JobListener listener, CrashPoints crash) {
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
  public static Result run(Spec spec, JobListener listener) throws IOException {
    return run(spec, listener, CrashPoints.configured());
  }

  /** {@link #run}, reaching {@code crash} at each step (test seam, see {@link CrashPoints}). */
  static Result run(Spec spec, JobListener listener, CrashPoints crash) throws IOException {
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
    return directory.resolve(STATE);
  }

  /** What the command asked that decides the shards: a resume must ask the same. */
  private JobIdentity identity(List<InputFile> inputs) {
    Map<String, String> m = new LinkedHashMap<>();
    m.put("format", spec.format().displayName());
    m.put("key", spec.key().describe());
    m.put("header", Boolean.toString(spec.header()));
    m.put("normalize", spec.normalizer().spec());
    m.put("ring", spec.ring().describe());
    m.put("compress", spec.compression().name().toLowerCase(Locale.ROOT));
    return new JobIdentity(LAYOUT.job(), inputs, m);
  }

  private Result run() throws IOException {
    List<InputFile> inputs = InputFile.expand(spec.inputs());
    InputFile.requireFiles(inputs, "split resumes by position in its inputs");
    int n = spec.ring().size();
    if (Files.exists(spec.directory()) && !Files.isDirectory(spec.directory())) {
      throw new JobException(
          spec.directory() + " is a file; -o names the directory the shard " + "files go to");
    }
    refuseDestructivePaths(stateDirectory(spec.directory()));
    Files.createDirectories(spec.directory());
    Path stateDir = stateDirectory(spec.directory());
    if (!Files.exists(stateDir.resolve(CHECKPOINT))) {
      requireNoShardFiles(n); // before the state: a directory of someone else's shards
    }
    // the first checkpoint is committed before any shard file exists, so a kill from then on
    // leaves a resumable split
    try (ResumableRun<Checkpoint> state =
        ResumableRun.open(LAYOUT, stateDir, identity(inputs), Checkpoint.start(n), crash)) {
      Checkpoint cp = state.checkpoint();
      if (state.resumed()) {
        if (cp.complete()) {
          return new Result(cp.records(), cp.badRecords(), cp.perShard(), true, true);
        }
        InputCheck.Outcome o =
            state.checkInputs(inputs, cp.position(), spec.verifyInputs(), listener);
        verifyStart = o.verifyStart();
        cp = withPosition(cp, ResumableRun.vouched(cp.position(), o));
      }
      return split(inputs, state, cp);
    }
  }

  /**
   * Refuses shard files and a quarantine file that are inputs or each other, before anything is
   * opened for writing: the same guard the command runs, for the library's callers.
   */
  private void refuseDestructivePaths(Path stateDir) throws IOException {
    OutputGuard guard =
        new OutputGuard()
            .inputs(spec.inputs())
            .stateDirectory("the split's state " + stateDir, stateDir);
    for (int i = 0; i < spec.ring().size(); i++) {
      Path shard = spec.directory().resolve(shardFileName(i, spec.format(), spec.compression()));
      guard.output("shard file " + shard, shard);
    }
    if (spec.onBadRecord() instanceof BadRecordPolicy.Quarantine q) {
      guard.output("the quarantine file " + q.file(), q.file());
    }
    guard.check();
  }

  private static Checkpoint withPosition(Checkpoint c, InputPosition at) {
    return new Checkpoint(
        at, c.records(), c.badRecords(), c.shards(), c.perShard(), c.quarantine(), c.complete());
  }

  private Result split(List<InputFile> inputs, ResumableRun<Checkpoint> state, Checkpoint start)
      throws IOException {
    int n = spec.ring().size();
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
    List<OutputFile> shards = new ArrayList<>();
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
      for (int i = 0; i < n; i++) {
        shards.add(
            OutputFile.open(
                spec.directory().resolve(shardFileName(i, spec.format(), spec.compression())),
                start.shards().get(i)));
      }
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
              shards.get(owner).writeRecord(batch, i);
              state.reached(Step.RECORD_WRITTEN);
              perShard[owner]++;
              records++;
              sinceCheckpoint++;
            }
            case RecordBatch.HEADER -> {
              for (OutputFile s : shards) {
                s.writeRecord(batch, i);
              }
            }
            case RecordBatch.BLANK -> {}
            default -> {
              if (spec.onBadRecord() instanceof BadRecordPolicy.Fail) {
                checkpoint(state, shards, quarantine, cursor, records, bad, perShard, false);
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
                SPLIT,
                PhaseProgress.Unit.BYTES,
                end ? total : source.rawBytesRead(),
                total,
                Map.of("records", records)));
        if (end) {
          checkpoint(state, shards, quarantine, cursor, records, bad, perShard, true);
          return new Result(records, bad, perShard, false, start.records() > 0);
        }
        if (sinceCheckpoint >= spec.checkpointRecords()) {
          checkpoint(state, shards, quarantine, cursor, records, bad, perShard, false);
          sinceCheckpoint = 0;
        }
      }
    } finally {
      for (OutputFile s : shards) {
        s.close();
      }
    }
  }

  private void checkpoint(
      ResumableRun<Checkpoint> state,
      List<OutputFile> shards,
      OutputFile quarantine,
      InputCursor cursor,
      long records,
      long bad,
      long[] perShard,
      boolean done)
      throws IOException {
    List<OutputFile.Mark> marks = new ArrayList<>(shards.size());
    for (OutputFile shard : shards) {
      marks.add(shard.mark()); // ends a compressed shard's frame: the length is a frame's end
    }
    OutputFile.Mark quarantineMark = quarantine == null ? OutputFile.Mark.EMPTY : quarantine.mark();
    state.reached(Step.SHARDS_SYNCED);
    state.commit(
        new Checkpoint(
            done ? cursor.finalPosition() : cursor.position(),
            records,
            bad,
            marks,
            perShard.clone(),
            quarantineMark,
            done));
  }

  /** A split's checkpoint as idem wrote it before the state-file encoding. */
  record LegacyCheckpoint(
      String job,
      List<InputFile> inputs,
      int fileIndex,
      long offset,
      long line,
      long records,
      long badRecords,
      long[] lengths,
      long[] perShard,
      long quarantineBytes,
      boolean complete,
      InputRead read,
      List<InputRead> ended) {}

  /** How a legacy checkpoint described the command, as one line. */
  private static final Pattern LEGACY_JOB =
      Pattern.compile(
          "format (\\S+), key (.+), header (true|false), normalizer (.+), ring (.+), gzip"
              + " (true|false)(, zstd)?");

  /** A legacy checkpoint, its identity's one line read into the settings it names. */
  private static ResumableRun.Saved<Checkpoint> legacy(StateFile.Contents json) throws IOException {
    LegacyCheckpoint c = json.as(LegacyCheckpoint.class);
    Matcher job = LEGACY_JOB.matcher(c.job());
    if (!job.matches()) {
      throw StateFile.damaged(json.file(), "cannot read the split it describes: " + c.job());
    }
    Map<String, String> settings = new LinkedHashMap<>();
    settings.put("format", job.group(1));
    settings.put("key", job.group(2));
    settings.put("header", job.group(3));
    settings.put("normalize", job.group(4));
    settings.put("ring", job.group(5));
    settings.put(
        "compress", job.group(7) != null ? "zstd" : job.group(6).equals("true") ? "gzip" : "none");
    List<OutputFile.Mark> marks = new ArrayList<>();
    for (long length : c.lengths()) {
      marks.add(new OutputFile.Mark(length, null));
    }
    return new ResumableRun.Saved<>(
        new JobIdentity(LAYOUT.job(), c.inputs(), settings),
        new Checkpoint(
            new InputPosition(c.fileIndex(), c.offset(), c.line(), c.read(), c.ended()),
            c.records(),
            c.badRecords(),
            marks,
            c.perShard(),
            new OutputFile.Mark(c.quarantineBytes(), null),
            c.complete()));
  }

  private void requireNoShardFiles(int n) throws IOException {
    try (var files = Files.list(spec.directory())) {
      List<String> shardFiles =
          files
              .map(p -> p.getFileName().toString())
              .filter(name -> name.startsWith("shard-"))
              .sorted()
              .toList();
      if (!shardFiles.isEmpty()) {
        throw new JobException(
            spec.directory()
                + " already holds shard files ("
                + shardFiles.get(0)
                + (shardFiles.size() > 1 ? ", ..." : "")
                + ") but no split "
                + "checkpoint: split into an empty directory");
      }
    }
  }
}
