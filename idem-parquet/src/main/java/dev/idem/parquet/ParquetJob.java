package dev.idem.parquet;

import dev.idem.core.Fingerprinter;
import dev.idem.core.filter.MembershipFilter;
import dev.idem.engine.Deduplicator;
import dev.idem.engine.DurableDeduplicator;
import dev.idem.engine.Idem;
import dev.idem.engine.JobException;
import dev.idem.engine.input.InputFile;
import dev.idem.engine.records.InputCheck;
import dev.idem.engine.records.InputRead;
import dev.idem.engine.run.CrashPoints;
import dev.idem.engine.run.InputPosition;
import dev.idem.engine.run.JobIdentity;
import dev.idem.engine.run.ResumableRun;
import dev.idem.engine.run.StateMismatchException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.apache.parquet.ParquetReadOptions;
import org.apache.parquet.column.ColumnReader;
import org.apache.parquet.column.impl.ColumnReadStoreImpl;
import org.apache.parquet.column.page.PageReadStore;
import org.apache.parquet.conf.PlainParquetConfiguration;
import org.apache.parquet.example.data.simple.convert.GroupRecordConverter;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.metadata.BlockMetaData;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;
import org.apache.parquet.hadoop.metadata.ParquetMetadata;
import org.apache.parquet.io.LocalInputFile;
import org.apache.parquet.io.ParquetDecodingException;
import org.apache.parquet.schema.MessageType;

/**
 * One run of a {@link ParquetDedup}: opens (or resumes) the state, then for each row group judges
 * the rows by their key columns and writes the kept ones, closing a part file and committing at
 * checkpoints.
 *
 * <p>The exactly-once order at a checkpoint: the part is closed, synced and renamed to its final
 * name, then the keys are committed with the position after it. A crash before the commit leaves a
 * part the checkpoint does not count, deleted on resume, and keys not marked, judged again.
 *
 * <p>Why it is long: the state, the row-group loop, the part files and the checkpoint are one
 * exactly-once order (above); the column copy, the key columns and the encodings are classes of
 * their own.
 */
final class ParquetJob {

  private final ParquetDedup job;
  private final PlainParquetConfiguration conf = new PlainParquetConfiguration();
  private final ParquetReadOptions readOptions;
  private final Fingerprinter fingerprinter;
  private Deduplicator dedup;

  /** {@link #dedup} with a state: where the checkpoints are committed; {@code null} without. */
  private DurableDeduplicator durable;

  private ParquetOutput kept;
  private ParquetOutput dropped;
  private RowCopy copy;

  private List<InputFile> inputs;
  private MessageType schema;
  private String schemaFile;

  private long parts;
  private long rows;
  private long keptRows;
  private long duplicates;
  private long nullKeys;

  /** Rows judged and when, since the last checkpoint (or the start). */
  private long rowsSinceCheckpoint;

  private long lastCheckpoint = System.nanoTime();

  /** What the job read of each input before the one it reads, for its checkpoints. */
  private final List<InputRead> read = new ArrayList<>();

  /** What it read of the input it reads: through the last row group judged ({@code null}: none). */
  private InputRead current;

  /** The first input's footer: what the output's column encodings are chosen from. */
  private ParquetMetadata firstFooter;

  /** Where each row group of the input being read ends in the file. */
  private long[] groupEnds = new long[0];

  /** When this run read its first row (its key columns), or -1 before that. */
  private long firstRowNanos = -1;

  /** A row's verdict in a row group: written to the output, to the dropped rows, or to neither. */
  private static final byte KEPT = 1;

  private static final byte DUPLICATE = 2;

  /** A Parquet job's crash points, besides the kernel's ({@link CrashPoints}). */
  enum Step {
    /** A part file closed and renamed into place, the checkpoint that counts it not committed. */
    PART_CLOSED
  }

  private final CrashPoints crash;

  ParquetJob(ParquetDedup job, CrashPoints crash) {
    this.job = job;
    this.crash = crash;
    // pages carry a CRC when their writer wrote one (parquet-java does by default): a damaged
    // page is an error, not rows with wrong values
    this.readOptions = ParquetReadOptions.builder(conf).usePageChecksumVerification(true).build();
    // string values are normalised by KeyColumns, never the tags and lengths around them
    this.fingerprinter = Fingerprinter.xxh3().withSeed(job.seed);
  }

  ParquetDedupResult run() throws IOException {
    long started = System.nanoTime();
    inputs = new ArrayList<>();
    for (String name : InputFile.files(job.inputs)) {
      if (InputFile.isStdin(name)) {
        throw new JobException("Parquet is read from files, not standard input");
      }
      if (!ParquetDedup.isMarker(name)) {
        inputs.add(InputFile.identify(Path.of(name)));
      }
    }
    ParquetOutput.refuseUnsafe(job, inputs);
    boolean single = ParquetOutput.isSingleFile(job.output);
    long totalRows = countRows();
    ParquetCheckpoint start = open(totalRows);
    boolean succeeded = false;
    try {
      if (start != null && start.done()) {
        succeeded = true;
        return result(start, true, true, started);
      }
      int file = start == null ? 0 : start.file();
      int group = start == null ? 0 : start.rowGroup();
      kept = new ParquetOutput(job.output, single, conf, codec(), job.rowGroupBytes);
      dropped =
          job.dropped == null
              ? null
              : new ParquetOutput(job.dropped, single, conf, codec(), job.rowGroupBytes);
      if (start == null && job.state == null && (kept.hasParts() || hasDroppedParts())) {
        throw new JobException(
            "the output already holds part files: give an empty or new output directory, or "
                + "delete them");
      }
      for (int f = file; f < inputs.size(); f++) {
        readFile(f, f == file ? group : 0);
      }
      closePart(inputs.size(), 0, true);
      ParquetDedupResult r =
          result(checkpoint(inputs.size(), 0, true), false, start != null, started);
      succeeded = true;
      return r;
    } finally {
      if (kept != null) {
        kept.abandon();
      }
      if (dropped != null) {
        dropped.abandon();
      }
      if (succeeded) {
        dedup.close();
      } else {
        // the keys judged since the last checkpoint stand for rows that may not have been
        // written: committing them (close) would make the resume drop those rows
        if (durable != null) {
          durable.abandon();
        } else {
          dedup.close();
        }
      }
    }
  }

  private boolean hasDroppedParts() throws IOException {
    return dropped != null && dropped.hasParts();
  }

  /** Opens the deduplicator and, with a state, the checkpoint to go on from (null: a new job). */
  private ParquetCheckpoint open(long totalRows) throws IOException {
    Deduplicator.Builder b =
        Idem.deduplicator().fingerprinter(fingerprinter).expectedKeys(Math.max(totalRows, 1024));
    if (job.state == null) {
      dedup = b.build();
      return null;
    }
    if (Files.exists(job.state.resolve("MANIFEST.json"))) {
      throw new JobException(
          job.state
              + " is the state of an idem dedup job over text inputs: give a Parquet job its own "
              + "--state directory");
    }
    durable = b.state(job.state).maxMemory(job.cacheBytes).open();
    dedup = durable;
    byte[] token = durable.lastCommittedToken();
    if (token == null) {
      if (Files.isDirectory(job.output) && new PartFiles(job.output).hasParts()) {
        dedup.close();
        throw new JobException(
            job.output
                + " already holds part files of another job: give an empty or new output "
                + "directory");
      }
      durable.commit(checkpoint(0, 0, false).encode()); // before any part: resumes start here
      return null;
    }
    ParquetCheckpoint cp;
    try {
      cp = ParquetCheckpoint.decode(job.state, token);
      requireSameJob(cp);
    } catch (IOException | RuntimeException e) {
      dedup.close();
      throw e;
    }
    parts = cp.parts();
    rows = cp.rows();
    keptRows = cp.kept();
    duplicates = cp.duplicates();
    nullKeys = cp.nullKeys();
    if (!cp.done()) {
      int deleted = 0;
      for (Path dir :
          job.dropped == null ? List.of(job.output) : List.of(job.output, job.dropped)) {
        PartFiles files = new PartFiles(dir);
        files.requireParts(parts);
        deleted += files.cutBackTo(parts);
      }
      job.listener.note(
          String.format(
              Locale.ROOT,
              "resuming at %s, row group %d (%,d rows done, %,d parts kept, %d written after "
                  + "the checkpoint deleted)",
              inputs.get(Math.min(cp.file(), inputs.size() - 1)).path(),
              cp.rowGroup(),
              rows,
              parts,
              deleted));
    }
    return cp;
  }

  /**
   * Refuses a checkpoint of another job, or over inputs that no longer hold what it read of them
   * (every input it began, whole: {@code InputCheck}).
   */
  private void requireSameJob(ParquetCheckpoint cp) throws IOException {
    List<JobIdentity.Difference> differences =
        cp.identity().differencesFrom(ParquetCheckpoint.identity(job, inputs));
    if (!differences.isEmpty()) {
      throw new StateMismatchException(job.state, ParquetCheckpoint.JOB, differences);
    }
    InputPosition at =
        new InputPosition(
            cp.file(), cp.current() == null ? 0 : cp.current().bytes(), 0, cp.current(), cp.read());
    InputCheck.Outcome o =
        ResumableRun.checkInputs(
            cp.identity().inputs(), inputs, at, job.verifyInputs, job.listener);
    if (o.verifyStart() && cp.current() != null) { // modified since: what was read, in full
      InputFile in = inputs.get(cp.file());
      if (!cp.current().crc().equals(InputRead.ofPrefix(in, null, cp.current().bytes()).crc())) {
        throw InputCheck.refusal(
            List.of(
                in.path()
                    + ": its first "
                    + cp.current().bytes()
                    + " bytes differ from the ones the job read"));
      }
    }
    read.addAll(ResumableRun.vouched(at, o).ended());
    current = cp.current();
  }

  /** Judges and writes the row groups of input {@code f} from {@code firstGroup} on. */
  private void readFile(int f, int firstGroup) throws IOException {
    String name = inputs.get(f).path();
    Path path = Path.of(name);
    try (ParquetFileReader keys = ParquetFileReader.open(new LocalInputFile(path), readOptions);
        ParquetFileReader all = ParquetFileReader.open(new LocalInputFile(path), readOptions)) {
      MessageType fileSchema = keys.getFooter().getFileMetaData().getSchema();
      requireSameSchema(name, fileSchema);
      KeyColumns key = KeyColumns.resolve(name, fileSchema, job.key, job.keyAsText, job.normalizer);
      keys.setRequestedSchema(key.projection());
      String createdBy = keys.getFooter().getFileMetaData().getCreatedBy();
      int groups = keys.getRowGroups().size();
      groupEnds = new long[groups];
      for (int g = 0; g < groups; g++) {
        BlockMetaData b = keys.getRowGroups().get(g);
        groupEnds[g] = b.getStartingPos() + b.getCompressedSize();
      }
      for (int g = firstGroup; g < groups; g++) {
        byte[] verdicts = judge(name, g, keys.readRowGroup(g), key, createdBy);
        write(all.readRowGroup(g), verdicts);
        if (checkpointDue()) {
          int nextFile = g + 1 < groups ? f : f + 1;
          int nextGroup = g + 1 < groups ? g + 1 : 0;
          closePart(nextFile, nextGroup, false);
        }
      }
    } catch (ParquetDecodingException | IllegalArgumentException e) {
      throw new ParquetInputException(name + ": damaged Parquet data (" + e.getMessage() + ")", e);
    } catch (IOException e) {
      if (e.getMessage() != null && e.getMessage().contains("is not a Parquet file")) {
        throw new ParquetInputException(name + ": not a Parquet file (or a truncated one)", e);
      }
      throw new ParquetInputException(
          name + ": damaged Parquet data, or the file cannot be read (" + e.getMessage() + ")", e);
    } catch (RuntimeException e) {
      if (e instanceof ParquetInputException) {
        throw e;
      }
      throw new ParquetInputException(name + ": damaged Parquet data (" + e + ")", e);
    }
  }

  /** Each row's verdict in row group {@code g}: kept (the first of its key), duplicate, or none. */
  private byte[] judge(String name, int g, PageReadStore pages, KeyColumns key, String createdBy) {
    if (firstRowNanos < 0) {
      firstRowNanos = System.nanoTime();
    }
    int n = Math.toIntExact(pages.getRowCount());
    ColumnReadStoreImpl store =
        new ColumnReadStoreImpl(
            pages,
            new GroupRecordConverter(key.projection()).getRootConverter(),
            key.projection(),
            createdBy);
    ColumnReader[] readers = new ColumnReader[key.columns().size()];
    for (int c = 0; c < readers.length; c++) {
      readers[c] = store.getColumnReader(key.columns().get(c));
    }
    // fingerprints first, then judged a chunk at a time with their slots read ahead, so the
    // cache misses of a chunk overlap (as the text job does per batch)
    long[] fingerprints = new long[2 * n];
    boolean[] hasKey = new boolean[n];
    for (int r = 0; r < n; r++) {
      int length = key.read(readers);
      if (length < 0) {
        if (job.nullKeys == ParquetDedup.NullKeys.FAIL) {
          throw new ParquetInputException(
              String.format(
                  Locale.ROOT,
                  "%s: row group %d, row %,d: key column %s is null (--on-bad-record skip "
                      + "leaves such rows out)",
                  name,
                  g,
                  r,
                  key.name(-2 - length)));
        }
        continue;
      }
      fingerprinter.fingerprintInto(key.bytes(), 0, length, fingerprints, r);
      hasKey[r] = true;
    }
    byte[] verdicts = new byte[n];
    for (int c = 0; c < n; c += MembershipFilter.PREFETCH_CHUNK) {
      int end = Math.min(n, c + MembershipFilter.PREFETCH_CHUNK);
      dedup.prefetch(fingerprints, c, end);
      for (int r = c; r < end; r++) {
        if (!hasKey[r]) {
          nullKeys++;
        } else if (dedup.firstSeen(fingerprints[2 * r], fingerprints[2 * r + 1], null)) {
          verdicts[r] = KEPT;
          keptRows++;
        } else {
          verdicts[r] = DUPLICATE;
          duplicates++;
        }
      }
    }
    rows += n;
    rowsSinceCheckpoint += n;
    return verdicts;
  }

  private void write(PageReadStore pages, byte[] verdicts) throws IOException {
    if (copy == null) {
      copy = newCopy();
    }
    copy.rowGroup(pages);
    for (byte v : verdicts) {
      if (v == KEPT) {
        copy.copyNext(kept.sink(copy, parts));
      } else if (v == DUPLICATE && dropped != null) {
        copy.copyNext(dropped.sink(copy, parts));
      } else {
        copy.skipNext();
      }
    }
  }

  /** The copier of rows into parts, their column encodings chosen from the first input. */
  private RowCopy newCopy() {
    ColumnEncodings encodings = ColumnEncodings.dictionaryEverywhere();
    if (schema != null && firstFooter != null) {
      MessageType first = firstFooter.getFileMetaData().getSchema();
      KeyColumns key =
          KeyColumns.resolve(inputs.get(0).path(), first, job.key, job.keyAsText, job.normalizer);
      List<BlockMetaData> groups = firstFooter.getBlocks();
      encodings = ColumnEncodings.choose(schema, key, groups.isEmpty() ? null : groups.get(0));
    }
    return new RowCopy(schema, encodings);
  }

  private boolean checkpointDue() {
    return job.state != null
        && rowsSinceCheckpoint > 0
        && (rowsSinceCheckpoint >= job.checkpointRows
            || System.nanoTime() - lastCheckpoint >= job.checkpointInterval.toNanos());
  }

  /**
   * Closes the open parts as part {@code parts} of each output (an empty one where no row went, so
   * the outputs' parts stay numbered alike and a finished job has at least one file) and, with a
   * state, commits with the position after them.
   */
  private void closePart(int nextFile, int nextGroup, boolean end) throws IOException {
    boolean open = kept.isOpen() || (dropped != null && dropped.isOpen());
    if (!open && !end) {
      // no row written since the last checkpoint (all repeats): no part to close, but the position
      // is committed all the same, so that a kill does not make the resume judge them again
      rowsSinceCheckpoint = 0;
      lastCheckpoint = System.nanoTime();
      if (job.state != null) {
        durable.commit(checkpoint(nextFile, nextGroup, false).encode());
        crash.reached(ResumableRun.Step.CHECKPOINT_COMMITTED);
      }
      return;
    }
    if (!open && (parts > 0 || schema == null)) {
      return;
    }
    if (copy == null) {
      copy = newCopy();
    }
    for (ParquetOutput o : dropped == null ? List.of(kept) : List.of(kept, dropped)) {
      o.sink(copy, parts);
      o.close(parts);
    }
    parts++;
    rowsSinceCheckpoint = 0;
    lastCheckpoint = System.nanoTime();
    if (job.state != null && !end) {
      crash.reached(Step.PART_CLOSED);
      durable.commit(checkpoint(nextFile, nextGroup, false).encode());
      crash.reached(ResumableRun.Step.CHECKPOINT_COMMITTED);
    }
  }

  /** The checkpoint at a position; with a state, the end's is committed too. */
  private ParquetCheckpoint checkpoint(int file, int group, boolean done) throws IOException {
    if (job.state != null) {
      noteRead(file, group);
    }
    ParquetCheckpoint cp =
        new ParquetCheckpoint(
            ParquetCheckpoint.identity(job, inputs),
            List.copyOf(read),
            current,
            file,
            group,
            parts,
            rows,
            keptRows,
            duplicates,
            nullKeys,
            done);
    if (done && job.state != null) {
      durable.commit(cp.encode());
    }
    return cp;
  }

  /**
   * Brings what was read up to the position before row group {@code group} of input {@code file}:
   * the inputs before it whole, its bytes through the row group before.
   */
  private void noteRead(int file, int group) throws IOException {
    while (read.size() < file) {
      InputFile in = inputs.get(read.size());
      read.add(InputRead.ofPrefix(in, current, Files.size(Path.of(in.path()))));
      current = null;
    }
    if (file < inputs.size() && group > 0) {
      long end = 0;
      for (int g = 0; g < group; g++) {
        end = Math.max(end, groupEnds[g]);
      }
      current = InputRead.ofPrefix(inputs.get(file), current, end);
    }
  }

  private void requireSameSchema(String name, MessageType fileSchema) {
    if (schema == null) {
      schema = fileSchema;
      schemaFile = name;
      return;
    }
    if (!schema.equals(fileSchema)) {
      List<String> mine = columns(schema);
      List<String> theirs = columns(fileSchema);
      List<String> missing = new ArrayList<>(mine);
      missing.removeAll(theirs);
      List<String> extra = new ArrayList<>(theirs);
      extra.removeAll(mine);
      throw new ParquetInputException(
          name
              + ": its schema differs from "
              + schemaFile
              + "'s"
              + (missing.isEmpty() ? "" : "; it lacks " + missing)
              + (extra.isEmpty() ? "" : "; it adds " + extra)
              + " (the output has one schema: dedup files of one schema together)");
    }
  }

  private static List<String> columns(MessageType s) {
    List<String> out = new ArrayList<>();
    s.getColumns()
        .forEach(c -> out.add(String.join(".", c.getPath()) + " " + c.getPrimitiveType()));
    return out;
  }

  /** The rows of every input, from their footers: an upper bound of the distinct keys. */
  private long countRows() {
    long total = 0;
    for (InputFile f : inputs) {
      try (ParquetFileReader r =
          ParquetFileReader.open(new LocalInputFile(Path.of(f.path())), readOptions)) {
        total += r.getRecordCount();
        if (firstFooter == null) {
          firstFooter = r.getFooter();
        }
      } catch (IOException | RuntimeException e) {
        String why =
            String.valueOf(e.getMessage()).contains("is not a Parquet file")
                ? "no Parquet footer at its end: truncated, or not Parquet"
                : "its footer cannot be read: " + e.getMessage();
        throw new ParquetInputException(
            f.path() + ": not a Parquet file, or a damaged one (" + why + ")", e);
      }
    }
    return total;
  }

  private CompressionCodecName codec() {
    return switch (job.compression) {
      case ZSTD -> CompressionCodecName.ZSTD;
      case SNAPPY -> CompressionCodecName.SNAPPY;
      case GZIP -> CompressionCodecName.GZIP;
      case NONE -> CompressionCodecName.UNCOMPRESSED;
    };
  }

  private ParquetDedupResult result(
      ParquetCheckpoint cp, boolean complete, boolean resumed, long started) {
    return new ParquetDedupResult(
        cp.rows(),
        cp.kept(),
        cp.duplicates(),
        cp.nullKeys(),
        cp.identity().inputs().size(),
        cp.parts(),
        resumed,
        complete,
        (System.nanoTime() - started) / 1_000_000,
        ((firstRowNanos < 0 ? System.nanoTime() : firstRowNanos) - started) / 1_000_000);
  }
}
