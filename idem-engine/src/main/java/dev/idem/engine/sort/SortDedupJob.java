package dev.idem.engine.sort;

import dev.idem.core.Fingerprinter;
import dev.idem.engine.JobException;
import dev.idem.engine.input.InputFile;
import dev.idem.engine.input.Inputs;
import dev.idem.engine.output.OutputFile;
import dev.idem.engine.output.OutputGuard;
import dev.idem.engine.records.BadRecordException;
import dev.idem.engine.records.BadRecordPolicy;
import dev.idem.engine.records.InputCheck;
import dev.idem.engine.records.KeyExtractor;
import dev.idem.engine.records.RecordBatch;
import dev.idem.engine.records.RecordSource;
import dev.idem.engine.run.CrashPoints;
import dev.idem.engine.run.InputCursor;
import dev.idem.engine.run.InputPosition;
import dev.idem.engine.run.JobListener;
import dev.idem.engine.run.PhaseProgress;
import dev.idem.engine.run.ResumableRun;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Exact dedup of inputs larger than memory, by external sort-merge within a memory budget (see
 * docs/SORT_DEDUP.md).
 *
 * <p>Phase 1 reads records in input order (the same reader as {@code dedup}: formats, gzip, zstd,
 * directories, keys, bad records), numbers them, and fills a buffer; a full buffer is sorted by
 * (key, position), its repeats dropped, and written as an LZ4 run. Phase 2 ({@link MergePhase})
 * merges the runs, dropping repeats across them, into the output in key order or, with one more
 * external sort on positions, in input order. Records carry their bytes throughout, so no input is
 * read twice and standard input and compressed inputs work.
 *
 * <p>With a state directory the job resumes after a kill: finished runs and merges are kept and
 * only the interrupted one is redone ({@link SortState}).
 */
public final class SortDedupJob {

  /**
   * The phase a job reports while it reads its inputs into runs (input bytes as stored, with the
   * records read and the runs written); the merges report {@code "merge N by key"} or {@code "merge
   * N by input position"} (records of runs merged, with the runs merged).
   */
  public static final String READ = "read";

  private static final long PROGRESS_NANOS = 500_000_000L;

  /** Run bytes per entry besides its record: fingerprint, position and length, uncompressed. */
  private static final int ENTRY_OVERHEAD = 24;

  /** A guess of the mean record size when there is nothing to measure (standard input). */
  private static final int DEFAULT_RECORD_BYTES = 128;

  /**
   * What a job needs for an input, before it runs: the sorted runs it writes, its merge passes and
   * the free space it asks of {@code --tmp}; what {@code idem plan} quotes.
   *
   * @param runs sorted runs written while reading
   * @param mergePasses passes over the data after reading (by key, and by position for input order)
   * @param tempBytes free space required in {@code --tmp}
   */
  public record Footprint(long runs, int mergePasses, long tempBytes) {}

  /** The footprint for {@code records} records of {@code inputBytes} (uncompressed) in all. */
  public static Footprint footprint(
      long memory, long inputBytes, long records, SortDedupSpec.Order order) {
    SortPlan plan = SortPlan.of(memory, order);
    long perRun = Math.max(1, plan.bufferBytes());
    long runs =
        Math.max(
            1,
            (inputBytes + records * (long) RunBuffer.indexBytes(RunKind.FINGERPRINT) + perRun - 1)
                / perRun);
    int passes = 1;
    for (long left = runs;
        left > plan.finalFanIn();
        left = (left + plan.fanIn() - 1) / plan.fanIn()) {
      passes++;
    }
    if (order == SortDedupSpec.Order.INPUT) {
      passes++;
    }
    return new Footprint(runs, passes, tempBytesFor(inputBytes, records));
  }

  private static long tempBytesFor(long inputBytes, long records) {
    // LZ4 about halves text, and in input order the runs by key and by position coexist for
    // a while: about the input's size, plus what does not compress
    return inputBytes + ENTRY_OVERHEAD * records;
  }

  private final SortDedupSpec spec;
  private final SortPlan plan;
  private final Long usableSpace;
  private final InputStream stdin;
  private final OutputStream stdout;
  private final JobListener listener;
  private final List<String> warnings = new ArrayList<>();
  private final RunKind kind;
  private final List<RunFile> runs = new ArrayList<>();
  private RunBuffer buffer;
  private byte[] header;
  private long records;
  private long blankLines;
  private long badRecords;
  private long ordinal;
  private long bytesSeen;

  /** The resumable job's state, or {@code null}. */
  private ResumableRun<SortState.Progress> state;

  private final CrashPoints crash;
  private OutputFile quarantine;

  /** Where the job is in its inputs: after the last record handled, with what it read. */
  private InputCursor cursor;

  /** Where a resumed job starts reading, with what it read before. */
  private InputPosition start = InputPosition.START;

  /** Whether the resumed job must check the part of its input read before ({@link InputCheck}). */
  private boolean verifyStart;

  private SortDedupJob(
      SortDedupSpec spec,
      SortPlan plan,
      Long usableSpace,
      InputStream stdin,
      OutputStream stdout,
      JobListener listener,
      CrashPoints crash) {
    this.spec = spec;
    this.plan = plan;
    this.usableSpace = usableSpace;
    this.stdin = stdin;
    this.stdout = stdout;
    this.listener = listener;
    this.crash = crash;
    this.kind = spec.exactKey() ? RunKind.EXACT_KEY : RunKind.FINGERPRINT;
  }

  /**
   * Runs a job to the end of its inputs.
   *
   * @throws BadRecordException for a bad record under the fail policy
   * @throws JobException when the job cannot start as asked (a key the header lacks, …)
   * @throws IOException for unreadable inputs, unwritable outputs, or a {@code --tmp} without room
   */
  public static SortDedupResult run(
      SortDedupSpec spec, InputStream stdin, OutputStream stdout, JobListener listener)
      throws IOException {
    return run(
        spec,
        SortPlan.of(spec.memoryBytes(), spec.order()),
        null,
        stdin,
        stdout,
        listener,
        CrashPoints.configured());
  }

  /** A job with a given plan and, when not null, a given free space in --tmp: for tests. */
  static SortDedupResult run(
      SortDedupSpec spec,
      SortPlan plan,
      Long usableSpace,
      InputStream stdin,
      OutputStream stdout,
      JobListener listener,
      CrashPoints crash)
      throws IOException {
    return new SortDedupJob(spec, plan, usableSpace, stdin, stdout, listener, crash).run();
  }

  private SortDedupResult run() throws IOException {
    long started = System.nanoTime();
    List<InputFile> inputs = InputFile.expand(spec.inputs());
    KeyExtractor extractor;
    try {
      extractor = KeyExtractor.of(spec.key(), spec.format());
    } catch (IllegalArgumentException e) {
      throw new JobException(e.getMessage());
    }
    Fingerprinter fingerprinter =
        Fingerprinter.xxh3().withSeed(spec.seed()).withNormalizer(spec.normalizer());
    if (spec.output() != null) {
      OutputFile.requireDirectory(spec.output()); // before the work, not after it
    }
    refuseDestructivePaths();
    Path tmp = spec.tmp() != null ? spec.tmp() : Path.of(System.getProperty("java.io.tmpdir"));
    if (spec.state() == null && !Files.isDirectory(tmp)) {
      throw new IOException("--tmp " + tmp + ": no such directory");
    }
    List<InputFile> files = inputs.stream().filter(f -> !f.isStream()).toList();
    long bytes = files.stream().mapToLong(SortDedupJob::estimatedTextBytes).sum();
    long recordsGuess = files.isEmpty() ? 0 : bytes / meanLineBytes(files.get(0)) + 1;
    long compressedTemp = tempBytesFor(bytes, recordsGuess);
    // uncompressed, the runs by key and by position coexist in input order: the input each
    long plainTemp = compressedTemp + (spec.order() == SortDedupSpec.Order.INPUT ? bytes : 0);
    // the runs go to the state directory when there is one, else to --tmp
    Path runsOn = spec.state() != null ? existingAncestor(spec.state()) : tmp;
    long usable = usableSpace != null ? usableSpace : Files.getFileStore(runsOn).getUsableSpace();
    // LZ4 costs about a third of the CPU time (lz4-java's safe codec): skip it when the disk has
    // room for plain runs with a quarter to spare
    boolean compress =
        spec.compressRuns() != null ? spec.compressRuns() : plainTemp + plainTemp / 4 > usable;
    if (spec.state() != null) {
      InputFile.requireFiles(inputs, "a job with --state reads its inputs again when it resumes");
      state = SortState.open(spec.state(), SortState.identity(spec, inputs), crash);
    }
    SortState.Progress from = state == null || !state.resumed() ? null : state.checkpoint();
    if (from != null && from.phase() == SortState.Phase.DONE) {
      warn(spec.state() + " holds a finished job: nothing was done; its output is as written");
      state.close();
      return result(
          from.records(),
          from.kept(),
          from.badRecords(),
          from.blankLines(),
          0,
          0,
          0,
          null,
          compress,
          from.outputBytes(),
          0,
          started);
    }
    if (from != null) {
      checkInputs(inputs, from);
    }
    try (RunDirectory dir =
        state != null
            ? RunDirectory.inState(
                SortState.runs(state),
                from == null ? List.of() : SortState.runFiles(state, from),
                compress)
            : RunDirectory.create(tmp, this::warn, compress)) {
      if (from == null || from.phase() == SortState.Phase.READING) {
        if (from == null) {
          RunDirectory.checkSpace(
              spec.state() != null ? "the state directory " + spec.state() : "--tmp " + tmp,
              compress ? compressedTemp : plainTemp,
              usable);
        }
        // the sort buffer's first split between record bytes and index, by the sampled mean
        int mean =
            recordsGuess == 0
                ? DEFAULT_RECORD_BYTES
                : (int) Math.max(8, Math.min(1 << 20, bytes / recordsGuess));
        buffer = new RunBuffer(kind, plan.bufferBytes(), keepLast(), mean);
        if (from != null) {
          restore(from);
        }
        read(inputs, extractor, fingerprinter, dir, from);
      } else {
        restore(from);
      }
      long readMillis = (System.nanoTime() - started) / 1_000_000;
      long kept;
      int passes = 0;
      int keyPasses = 0;
      long outputBytes;
      try (OutputFile out =
          spec.output() != null
              ? OutputFile.open(spec.output())
              : OutputFile.stream("<stdout>", stdout)) {
        if (header != null) {
          out.write(header, 0, header.length);
        }
        EntrySink sink =
            (hi, lo, ord, key, keyOff, keyLen, record, off, len) -> out.write(record, off, len);
        if (runs.isEmpty() && buffer != null) { // it all fit in memory: no runs at all
          kept =
              spec.order() == SortDedupSpec.Order.INPUT
                  ? buffer.drainSurvivorsInArrivalOrder(sink)
                  : buffer.drainSorted(sink);
        } else {
          if (buffer != null && buffer.size() > 0) {
            spill(dir);
          }
          buffer = null; // its memory goes to the merge
          boolean positions = from != null && from.phase() == SortState.Phase.POSITIONS;
          if (!positions) {
            checkpoint(SortState.Phase.MERGING, runs, dir);
          }
          MergePhase merge =
              new MergePhase(
                  dir,
                  plan,
                  keepLast(),
                  listener,
                  (now, byPosition) ->
                      checkpoint(
                          byPosition ? SortState.Phase.POSITIONS : SortState.Phase.MERGING,
                          now,
                          dir));
          int seen = (int) Math.min(1 << 20, bytesSeen / Math.max(1, ordinal));
          kept =
              positions
                  ? merge.fromPositions(List.copyOf(runs), sink)
                  : spec.order() == SortDedupSpec.Order.INPUT
                      ? merge.inInputOrder(List.copyOf(runs), sink, seen)
                      : merge.inKeyOrder(List.copyOf(runs), sink);
          passes = merge.passes();
          keyPasses = merge.keyPasses();
        }
        out.flush();
        outputBytes = out.length();
        if (state != null) {
          out.sync();
          state.reached(SortState.Step.OUTPUT_WRITTEN);
        }
      }
      if (state != null) {
        state.commit(progress(SortState.Phase.DONE, List.of(), ordinal, kept, outputBytes));
        dir.deleteMerged();
      }
      return result(
          records,
          kept,
          badRecords,
          blankLines,
          runs.size(),
          passes,
          keyPasses,
          dir,
          compress,
          outputBytes,
          readMillis,
          started);
    } finally {
      if (quarantine != null) {
        quarantine.close();
      }
      if (state != null) {
        state.close();
      }
    }
  }

  private SortDedupResult result(
      long records,
      long kept,
      long badRecords,
      long blankLines,
      int runCount,
      int passes,
      int keyPasses,
      RunDirectory dir,
      boolean compress,
      long outputBytes,
      long readMillis,
      long started) {
    long ok = records - badRecords;
    return new SortDedupResult(
        records,
        kept,
        ok - kept,
        badRecords,
        blankLines,
        runCount,
        passes,
        keyPasses,
        plan.fanIn(),
        spec.memoryBytes(),
        dir == null ? 0 : dir.writtenBytes(),
        dir == null ? 0 : dir.peakBytes(),
        compress,
        outputBytes,
        readMillis,
        (System.nanoTime() - started) / 1_000_000,
        List.copyOf(warnings));
  }

  /** Takes the counts, position and runs of the checkpoint a job resumes from. */
  private void restore(SortState.Progress from) {
    records = from.records();
    blankLines = from.blankLines();
    badRecords = from.badRecords();
    ordinal = from.ordinal();
    bytesSeen = from.bytesSeen();
    header = from.header();
    start = from.position();
    runs.clear();
    runs.addAll(SortState.runFiles(state, from));
  }

  /**
   * Refuses to resume over inputs that changed in what the job read of them: the runs hold records
   * read from them. After reading, that is all of every input.
   */
  private void checkInputs(List<InputFile> inputs, SortState.Progress from) throws IOException {
    JobListener warnings = // counted in the result too
        new JobListener() {
          @Override
          public void warning(String message) {
            warn(message);
          }

          @Override
          public void note(String message) {
            listener.note(message);
          }
        };
    InputPosition at = from.position();
    InputCheck.Outcome o = state.checkInputs(inputs, at, spec.verifyInputs(), warnings);
    verifyStart = o.verifyStart();
    if (!o.vouched().isEmpty()) {
      state.commit(withPosition(from, ResumableRun.vouched(at, o)));
    }
  }

  private SortState.Progress progress(
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

  /** A checkpoint naming {@code now}, all synced; then the runs merged away are deleted. */
  private void checkpoint(SortState.Phase phase, List<RunFile> now, RunDirectory dir)
      throws IOException {
    if (state == null) {
      return;
    }
    if (phase != SortState.Phase.READING) {
      state.reached(SortState.Step.RUNS_MERGED);
    }
    state.commit(progress(phase, now, ordinal, 0, 0));
    dir.deleteMerged();
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

  private static SortState.Progress withPosition(SortState.Progress p, InputPosition at) {
    return new SortState.Progress(
        p.phase(),
        at,
        p.ordinal(),
        p.records(),
        p.blankLines(),
        p.badRecords(),
        p.bytesSeen(),
        p.quarantine(),
        p.header(),
        p.runs(),
        p.kept(),
        p.outputBytes());
  }

  /** The deepest existing directory at or above {@code path} (a state may not exist yet). */
  private static Path existingAncestor(Path path) {
    Path p = path.toAbsolutePath();
    while (p != null && !Files.isDirectory(p)) {
      p = p.getParent();
    }
    return p == null ? Path.of(".") : p;
  }

  /**
   * Refuses outputs that are inputs, lie in the state directory or are each other, before anything
   * is opened for writing: the same guard the command runs, for the library's callers.
   */
  private void refuseDestructivePaths() throws IOException {
    OutputGuard guard =
        new OutputGuard()
            .resumable(spec.state() != null)
            .inputs(spec.inputs())
            .stateDirectory("the state directory " + spec.state(), spec.state())
            .output("the output " + spec.output(), spec.output());
    if (spec.onBadRecord() instanceof BadRecordPolicy.Quarantine q) {
      guard.output("the quarantine file " + q.file(), q.file());
    }
    guard.check();
  }

  private boolean keepLast() {
    return spec.keep() == SortDedupSpec.Keep.LAST;
  }

  /** The mean line length of the first 64 KiB of {@code file}: a guess at record sizes. */
  /** About how many bytes of text {@code file} holds: its size, decompressed if compressed. */
  private static long estimatedTextBytes(InputFile file) {
    try {
      return file.compression().estimatedBytes(file.size());
    } catch (IOException e) {
      return file.size(); // unreadable: reading it says so, naming it
    }
  }

  private static long meanLineBytes(InputFile file) throws IOException {
    try (InputStream in = Inputs.open(file.path(), InputStream.nullInputStream())) {
      byte[] sample = in.readNBytes(64 << 10);
      long lines = sample.length > 0 && sample[sample.length - 1] != '\n' ? 1 : 0;
      for (byte b : sample) {
        lines += b == '\n' ? 1 : 0;
      }
      return Math.max(1, sample.length / Math.max(1, lines));
    }
  }

  private void read(
      List<InputFile> inputs,
      KeyExtractor extractor,
      Fingerprinter fingerprinter,
      RunDirectory dir,
      SortState.Progress from)
      throws IOException {
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
                  READ,
                  PhaseProgress.Unit.BYTES,
                  end ? total : source.rawBytesRead(),
                  total,
                  java.util.Map.of("records", records, "runs", (long) runs.size())));
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
    if (buffer.add(
        hi, lo, position, key, 0, keyLength, batch.arena, batch.start[i], length, newline)) {
      return;
    }
    if (buffer.size() > 0) {
      spill(dir);
      if (state != null) {
        state.reached(SortState.Step.RUN_SPILLED);
        state.commit(progress(SortState.Phase.READING, runs, position, 0, 0));
      }
      if (buffer.add(
          hi, lo, position, key, 0, keyLength, batch.arena, batch.start[i], length, newline)) {
        return;
      }
    }
    // larger than the whole buffer: a run of its own
    byte[] record = recordBytes(batch, i);
    RunWriter w = dir.newRun(kind, plan.blockBytes());
    try {
      w.write(hi, lo, position, key, 0, keyLength, record, 0, record.length);
      runs.add(dir.finished(w.finish()));
    } finally {
      w.close();
    }
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

  private void spill(RunDirectory dir) throws IOException {
    RunWriter w = dir.newRun(kind, plan.blockBytes());
    try {
      buffer.drainSorted(w);
      runs.add(dir.finished(w.finish()));
    } finally {
      w.close();
    }
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
        if (buffer.size() > 0) {
          spill(dir);
        }
        state.commit(progress(SortState.Phase.READING, runs, ordinal, 0, 0));
      }
      throw new BadRecordException(name, batch.line[i], batch.problem[i], state != null);
    }
    if (policy instanceof BadRecordPolicy.Quarantine) {
      String w = quarantine.quarantine(batch, i, name);
      if (w != null) {
        warn(w);
      }
    }
  }

  private void warn(String message) {
    warnings.add(message);
    listener.warning(message);
  }
}
