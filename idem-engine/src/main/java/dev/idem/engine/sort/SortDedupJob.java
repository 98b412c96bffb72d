package dev.idem.engine.sort;

import dev.idem.core.Fingerprinter;
import dev.idem.engine.JobException;
import dev.idem.engine.input.InputFile;
import dev.idem.engine.records.BadRecordException;
import dev.idem.engine.records.KeyExtractor;
import dev.idem.engine.run.CrashPoints;
import dev.idem.engine.run.JobListener;
import dev.idem.engine.run.JobWarnings;
import dev.idem.engine.run.ResumableRun;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.Path;
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
 *
 * <p>This class is the start: the checks, the state opened and the resume's checks. Its parts are
 * {@link SortDedupPreconditions} (refusals before reading), {@link RunSpace} (the room the runs
 * need, and whether they are compressed), {@link ReadPhase} (the inputs into {@link SortedRuns})
 * and {@link OutputPhase} (the output, through {@link MergePhase}).
 */
public final class SortDedupJob {

  /**
   * The phase a job reports while it reads its inputs into runs (input bytes as stored, with the
   * records read and the runs written); the merges report {@code "merge N by key"} or {@code "merge
   * N by input position"} (records of runs merged, with the runs merged).
   */
  public static final String READ = "read";

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
    return new Footprint(runs, passes, RunSpace.tempBytesFor(inputBytes, records));
  }

  private final SortDedupSpec spec;
  private final SortPlan plan;
  private final Long usableSpace;
  private final InputStream stdin;
  private final OutputStream stdout;
  private final JobListener listener;
  private final CrashPoints crash;
  private final JobWarnings warnings;

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
    this.warnings = new JobWarnings(listener);
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
    Path tmp = spec.tmp() != null ? spec.tmp() : Path.of(System.getProperty("java.io.tmpdir"));
    SortDedupPreconditions.check(spec, tmp);
    RunSpace space = RunSpace.measure(spec, inputs, tmp, usableSpace);
    boolean compress = space.compress();
    ResumableRun<SortState.Progress> state = null;
    if (spec.state() != null) {
      InputFile.requireFiles(inputs, "a job with --state reads its inputs again when it resumes");
      state = SortState.open(spec.state(), SortState.identity(spec, inputs), crash);
    }
    // closed however the job ends, a refused resume included: its lock must not outlive the call
    try {
      SortState.Progress from = state == null || !state.resumed() ? null : state.checkpoint();
      if (from != null && from.phase() == SortState.Phase.DONE) {
        warnings.add(
            spec.state() + " holds a finished job: nothing was done; its output is as written");
        return result(
            from.records(),
            from.badRecords(),
            from.blankLines(),
            0,
            new OutputPhase.Written(from.kept(), 0, 0, from.outputBytes()),
            null,
            compress,
            0,
            started);
      }
      boolean verifyStart =
          from != null
              && SortState.checkInputs(
                  state, inputs, from, spec.verifyInputs(), warnings.listener());
      ReadPhase read = new ReadPhase(spec, plan, stdin, listener, warnings, state, verifyStart);
      try (RunDirectory dir =
          state != null
              ? RunDirectory.inState(
                  SortState.runs(state),
                  from == null ? List.of() : SortState.runFiles(state, from),
                  compress)
              : RunDirectory.create(tmp, warnings::add, compress)) {
        if (from == null || from.phase() == SortState.Phase.READING) {
          if (from == null) {
            space.check();
          }
          read.read(inputs, extractor, fingerprinter, dir, from, space.meanRecordBytes());
        } else {
          read.restore(from);
        }
        long readMillis = (System.nanoTime() - started) / 1_000_000;
        boolean fromPositions = from != null && from.phase() == SortState.Phase.POSITIONS;
        OutputPhase.Written written =
            new OutputPhase(spec, plan, stdout, listener, state, read, dir).write(fromPositions);
        return result(
            read.records(),
            read.badRecords(),
            read.blankLines(),
            read.runs().count(),
            written,
            dir,
            compress,
            readMillis,
            started);
      } finally {
        read.closeQuarantine();
      }
    } finally {
      if (state != null) {
        state.close();
      }
    }
  }

  private SortDedupResult result(
      long records,
      long badRecords,
      long blankLines,
      int runCount,
      OutputPhase.Written written,
      RunDirectory dir,
      boolean compress,
      long readMillis,
      long started) {
    long ok = records - badRecords;
    return new SortDedupResult(
        records,
        written.kept(),
        ok - written.kept(),
        badRecords,
        blankLines,
        runCount,
        written.passes(),
        written.keyPasses(),
        plan.fanIn(),
        spec.memoryBytes(),
        dir == null ? 0 : dir.writtenBytes(),
        dir == null ? 0 : dir.peakBytes(),
        compress,
        written.outputBytes(),
        readMillis,
        (System.nanoTime() - started) / 1_000_000,
        warnings.list());
  }
}
