package dev.idem.engine.shard;

import dev.idem.core.Fingerprinter;
import dev.idem.core.KeyNormalizer;
import dev.idem.engine.JobException;
import dev.idem.engine.records.BadRecordException;
import dev.idem.engine.records.BadRecordPolicy;
import dev.idem.engine.records.Compression;
import dev.idem.engine.records.InputCheck;
import dev.idem.engine.records.InputFile;
import dev.idem.engine.records.InputRead;
import dev.idem.engine.records.InputReads;
import dev.idem.engine.records.KeyExtractor;
import dev.idem.engine.records.KeySpec;
import dev.idem.engine.records.OutputFile;
import dev.idem.engine.records.RecordBatch;
import dev.idem.engine.records.RecordFormat;
import dev.idem.engine.records.RecordSource;
import dev.idem.engine.records.VerifyInputs;
import dev.idem.engine.run.Json;
import dev.idem.engine.run.StateDirectory;
import dev.idem.engine.state.Checkpoint;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * {@code idem split}: routes every record to the shard file of the node that owns its key, so that
 * exact dedup can run per shard on separate machines and the union of their outputs equals a global
 * dedup. Records keep their bytes and their input order within a shard.
 *
 * <p>Resumable with the dedup job's protocol, minus the dedup: a checkpoint flushes and syncs every
 * shard file (compressed, it first ends the current gzip member or zstd frame, so a file cut back
 * to a checkpoint decompresses whole), then atomically writes the input position and every shard's
 * length to {@code DIR/.idem-split/checkpoint.json}. A rerun of the same command cuts the shard
 * files back to those lengths and reads on from that position, once its inputs are found to hold
 * what the split read of them ({@link InputCheck}).
 */
public final class SplitJob {

  /**
   * What a split is told.
   *
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
      VerifyInputs verifyInputs) {}

  /** What a split did: records per shard (this run and before), and bad records skipped. */
  public record Result(
      long records, long badRecords, long[] perShard, boolean alreadyComplete, boolean resumed) {}

  /**
   * The durable state of a split; {@code job} identifies the command. {@code read} is what was read
   * of input {@code fileIndex}, {@code ended} of each input before it (both {@code null} in the
   * checkpoints of versions that did not keep them).
   */
  record Checkpoint(
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

  static final String STATE = ".idem-split";
  private static final String CHECKPOINT = "checkpoint.json";

  private final Spec spec;
  private final Listener listener;

  /** What this run read ({@link InputReads}), and what was read of the inputs before it. */
  private InputReads reads;

  private final List<InputRead> ended = new ArrayList<>();
  private boolean verifyStart;

  /** Hears about progress, and about what the user should know. */
  public interface Listener {
    default void progress(long rawBytesDone, long rawBytesTotal, long records) {}

    default void note(String message) {}

    default void warning(String message) {}
  }

  private SplitJob(Spec spec, Listener listener) {
    this.spec = spec;
    this.listener = listener;
  }

  /**
   * Splits the inputs, or resumes a split killed before it finished.
   *
   * @throws BadRecordException for a record without a usable key, unless skipping them
   * @throws JobException when the command differs from the split in the directory
   */
  public static Result run(Spec spec, Listener listener) throws IOException {
    return new SplitJob(spec, listener).run();
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

  private String identity() {
    return "format "
        + spec.format().displayName()
        + ", key "
        + spec.key().describe()
        + ", header "
        + spec.header()
        + ", normalizer "
        + spec.normalizer().spec()
        + ", ring "
        + spec.ring().describe()
        + ", gzip "
        + (spec.compression() == Compression.GZIP) // as splits before zstd wrote it
        + (spec.compression() == Compression.ZSTD ? ", zstd" : "");
  }

  private Result run() throws IOException {
    List<InputFile> inputs = InputFile.expand(spec.inputs());
    if (inputs.stream().anyMatch(InputFile::isStdin)) {
      throw new JobException("split reads files, not standard input: it resumes by position");
    }
    int n = spec.ring().size();
    if (Files.exists(spec.directory()) && !Files.isDirectory(spec.directory())) {
      throw new JobException(
          spec.directory() + " is a file; -o names the directory the shard " + "files go to");
    }
    Files.createDirectories(spec.directory());
    try (StateDirectory state = StateDirectory.open(stateDirectory(spec.directory()), CHECKPOINT)) {
      Checkpoint cp = readCheckpoint(state);
      if (cp == null) {
        requireNoShardFiles(n);
        cp =
            new Checkpoint(
                identity(),
                inputs,
                0,
                0,
                0,
                0,
                0,
                new long[n],
                new long[n],
                0,
                false,
                null,
                List.of());
        // committed before any shard file exists, so a kill from here on leaves a resumable split
        state.writeAtomically(CHECKPOINT, Json.write(cp));
      } else {
        checkSameJob(cp, inputs);
        if (cp.complete()) {
          return new Result(cp.records(), cp.badRecords(), cp.perShard(), true, true);
        }
        List<InputRead> before = cp.ended() == null ? List.of() : cp.ended();
        InputCheck.Outcome o =
            InputCheck.run(
                cp.inputs(),
                inputs,
                cp.fileIndex(),
                cp.offset(),
                cp.read(),
                f -> f < before.size() ? before.get(f) : null,
                spec.verifyInputs());
        o.notes().forEach(listener::note);
        o.warnings().forEach(listener::warning);
        verifyStart = o.verifyStart();
        ended.addAll(before);
        while (ended.size() < cp.fileIndex()) {
          ended.add(null); // read to its end under a version that did not keep what it read
        }
        o.vouched().forEach(ended::set);
      }
      return split(inputs, state, cp);
    }
  }

  private Result split(List<InputFile> inputs, StateDirectory state, Checkpoint start)
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
    try (RecordSource source =
            RecordSource.tracking(
                inputs,
                settings,
                start.fileIndex(),
                start.offset(),
                start.line(),
                start.read(),
                verifyStart);
        OutputFile quarantine =
            quarantinePath == null
                ? null
                : OutputFile.open(quarantinePath, start.quarantineBytes(), null)) {
      reads = source.reads();
      for (int i = 0; i < n; i++) {
        shards.add(
            OutputFile.open(
                spec.directory().resolve(shardFileName(i, spec.format(), spec.compression())),
                start.lengths()[i],
                null));
      }
      long[] perShard = start.perShard().clone();
      long records = start.records();
      long bad = start.badRecords();
      int file = start.fileIndex();
      long offset = start.offset();
      long line = start.line();
      long sinceCheckpoint = 0;
      while (true) {
        RecordBatch batch = source.next();
        for (int i = 0; i < batch.count; i++) {
          switch (batch.kind[i]) {
            case RecordBatch.OK -> {
              int owner =
                  spec.ring().owner(batch.fingerprints[2 * i], batch.fingerprints[2 * i + 1]);
              shards.get(owner).writeRecord(batch, i);
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
                checkpoint(
                    state,
                    shards,
                    quarantine,
                    inputs,
                    file,
                    offset,
                    line,
                    records,
                    bad,
                    perShard,
                    false);
                throw new BadRecordException(
                    inputs.get(batch.fileIndex[i]).path(), batch.line[i], batch.problem[i], true);
              }
              if (quarantine != null && batch.tooLongToKeep(i)) {
                listener.warning(
                    inputs.get(batch.fileIndex[i]).path()
                        + ":"
                        + batch.line[i]
                        + ": "
                        + batch.problem[i]
                        + "; too long to quarantine, counted as bad");
              } else if (quarantine != null) {
                quarantine.write(
                    batch.arena,
                    batch.start[i],
                    batch.contentLength[i] + batch.terminatorLength[i]);
                if (batch.terminatorLength[i] == 0) {
                  quarantine.write((byte) '\n');
                }
              }
              bad++;
              records++;
            }
          }
          file = batch.fileIndex[i];
          offset = batch.endOffset[i];
          line = batch.endLine[i];
          reads.handled(batch, i);
        }
        boolean end = batch.endOfInput;
        source.recycle(batch);
        listener.progress(end ? total : source.rawBytesRead(), total, records);
        if (end) {
          checkpoint(
              state, shards, quarantine, inputs, file, offset, line, records, bad, perShard, true);
          return new Result(records, bad, perShard, false, start.records() > 0);
        }
        if (sinceCheckpoint >= spec.checkpointRecords()) {
          checkpoint(
              state, shards, quarantine, inputs, file, offset, line, records, bad, perShard, false);
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
      StateDirectory state,
      List<OutputFile> shards,
      OutputFile quarantine,
      List<InputFile> inputs,
      int file,
      long offset,
      long line,
      long records,
      long bad,
      long[] perShard,
      boolean done)
      throws IOException {
    long[] lengths = new long[shards.size()];
    for (int i = 0; i < shards.size(); i++) {
      shards.get(i).sync(); // ends a compressed shard's frame: the length is a frame's end
      lengths[i] = shards.get(i).length();
    }
    if (quarantine != null) {
      quarantine.sync();
    }
    while (ended.size() < file) { // an input before the one being read: read to its end
      ended.add(reads.ended(ended.size()));
    }
    state.writeAtomically(
        CHECKPOINT,
        Json.write(
            new Checkpoint(
                identity(),
                inputs,
                file,
                offset,
                line,
                records,
                bad,
                lengths,
                perShard,
                quarantine == null ? 0 : quarantine.length(),
                done,
                reads.current(),
                ended)));
  }

  private static Checkpoint readCheckpoint(StateDirectory state) throws IOException {
    Path f = state.path().resolve(CHECKPOINT);
    try {
      return Json.read(Files.readAllBytes(f), Checkpoint.class);
    } catch (NoSuchFileException e) {
      return null;
    } catch (IOException e) {
      throw new JobException(
          f
              + ": unreadable ("
              + e.getMessage().lines().findFirst().orElse("")
              + "); remove the directory to start the split over");
    }
  }

  private void checkSameJob(Checkpoint cp, List<InputFile> inputs) throws JobException {
    List<String> differences = new ArrayList<>();
    if (!cp.job().equals(identity())) {
      differences.add("the split in it: " + cp.job() + "; this command: " + identity());
    }
    if (cp.inputs().size() != inputs.size()) {
      differences.add(
          "it split " + cp.inputs().size() + " input files, this command names " + inputs.size());
    } else {
      for (int i = 0; i < inputs.size(); i++) {
        String d =
            cp.inputs().get(i).isSameFileAs(inputs.get(i))
                ? cp.inputs().get(i).differenceFrom(inputs.get(i))
                : "input " + (i + 1) + " was " + cp.inputs().get(i).path();
        if (d != null) {
          differences.add(d);
        }
      }
    }
    if (!differences.isEmpty()) {
      throw new JobException(
          spec.directory()
              + " holds another split:\n  "
              + String.join("\n  ", differences)
              + "\nrerun the original command to resume it, or split into an empty directory");
    }
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
