package dev.idem.engine.partition;

import dev.idem.core.filter.FingerprintSet;
import dev.idem.engine.JobException;
import dev.idem.engine.input.InputFile;
import dev.idem.engine.records.RecordBatch;
import dev.idem.engine.records.RecordSource;
import dev.idem.engine.records.VerifyInputs;
import dev.idem.engine.run.CrashPoints;
import dev.idem.engine.run.InputCursor;
import dev.idem.engine.run.InputPosition;
import dev.idem.engine.run.JobListener;
import dev.idem.engine.run.PhaseProgress;
import dev.idem.engine.run.PhaseReporter;
import dev.idem.engine.run.ResumableRun;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;

/**
 * The partitioned method of exact dedup, for exact sets larger than the memory a job may use: the
 * verdicts are worked out before any record is written, in two passes whose memory is bounded by a
 * budget, and the job's usual loop then writes the records in one more read of the inputs, asking
 * its judge for each verdict ({@code PlannedJudge}).
 *
 * <ol>
 *   <li><b>Partition</b>: read the inputs, fingerprint each judged record (the records the job's
 *       loop judges, in the same order), and append (fingerprint, ordinal) to one of {@code P}
 *       files chosen by the fingerprint ({@link PartitionFiles}). All records of a key land in one
 *       file, in input order. {@code P} is chosen so that one file's keys fit the budget.
 *   <li><b>Judge each partition</b>: read one file at a time into an in-memory {@link
 *       FingerprintSet}; an entry whose key is already there is a later occurrence, and its bit in
 *       {@link DuplicateBits} is set. A file with more records than the budget holds (the record
 *       count was guessed low, or the keys are skewed) is split again by other fingerprint bits.
 * </ol>
 *
 * <p>Every record is read twice and its fingerprint written and read once (24 bytes), where the
 * RocksDB tier reads the disk at random for every duplicate.
 *
 * <p>Resumable: in a state directory, the first pass checkpoints (every {@link
 * #FIRST_PASS_CHECKPOINT_SPREAD} times {@code checkpointRecords} records, or {@code
 * checkpointInterval}): the partition files are synced and {@code progress.json} ({@link
 * PlanProgress}) records the input position with what was read, the count of judged records and the
 * files' lengths; a resume cuts the files back to those lengths and reads on from there. The second
 * pass records each partition done, with the duplicates it found, after its marks are synced; a
 * resume redoes the one in progress, which sets the same bits again. When the last partition is
 * judged, the bits set must be as many as the duplicates found, and their CRC32C is recorded; a
 * resume checks it before any verdict is read. Bits that do not match (a file deleted or damaged)
 * are never trusted: the plan is made again from the inputs, which decides the same verdicts.
 *
 * <p>The verdicts are by record ordinal, so they stand for the inputs as the first pass read them:
 * a resume checks the inputs against what it read (all of them, once partitioned), and refuses
 * inputs that changed ({@code InputCheck}).
 */
public final class PartitionedPlan {

  /** The phase of the first read, reported to the job's listener: input bytes as stored. */
  public static final String PARTITION = "partition";

  /** The phase that judges the partitions, one at a time: partitions. */
  public static final String JUDGE = "judge";

  static final String BITS = "duplicates.bits";

  /**
   * The first pass checkpoints this many times fewer records apart than the job: a checkpoint syncs
   * every partition file, and what a kill makes it redo (read, hash, append 24 bytes) is cheap. Its
   * time interval is the job's.
   */
  static final int FIRST_PASS_CHECKPOINT_SPREAD = 16;

  /** The most files the first pass writes at once. */
  static final int MAX_PARTITIONS = 512; // each an open file: well under the usual limit of 1024

  private final Path dir;
  private final boolean durable;
  private final long setBudget;
  private final JobListener listener;
  private final CrashPoints crash;

  /** Whether a resumed first pass checks the part of its input read before as it passes it. */
  private boolean verifyStart;

  /** The crash points of the plan, besides the job's. */
  enum Step {
    /** The first pass's partition files synced for a checkpoint, not yet committed. */
    PARTITIONS_SYNCED,
    /** A partition judged and its marks synced, not yet committed. */
    PARTITION_JUDGED
  }

  private PartitionedPlan(
      Path dir, boolean durable, long setBudget, JobListener listener, CrashPoints crash) {
    this.dir = dir;
    this.durable = durable;
    this.setBudget = setBudget;
    this.listener = listener;
    this.crash = crash;
  }

  /**
   * Makes (or finishes) the verdicts of a job's inputs in {@code dir}.
   *
   * @param durable whether {@code dir} is in a state directory: then the plan checkpoints and a
   *     later run resumes it
   * @param setBudget the bytes the in-memory set of one partition may take
   * @param recordsGuess how many records the inputs hold, about (sizes the partitions)
   * @param listener what the plan tells the user: its partition count, the progress of its {@link
   *     #PARTITION} and {@link #JUDGE} phases
   */
  public static DuplicateBits run(
      Path dir,
      boolean durable,
      List<InputFile> inputs,
      RecordSource.Settings settings,
      long setBudget,
      long recordsGuess,
      long checkpointRecords,
      Duration checkpointInterval,
      VerifyInputs verifyInputs,
      JobListener listener,
      CrashPoints crash)
      throws IOException {
    Files.createDirectories(dir);
    PartitionedPlan plan = new PartitionedPlan(dir, durable, setBudget, listener, crash);
    PlanProgress p = durable ? PlanProgress.load(dir) : null;
    if (p != null) {
      plan.verifyStart = checkInputs(p, inputs, verifyInputs, listener);
      if (p.judgedAll() && !plan.bitsMatch(p)) {
        p = plan.startOver(BITS + " does not hold the verdicts the plan recorded");
      } else if (p.partitionsJudged() > 0 && !Files.isRegularFile(dir.resolve(BITS))) {
        // the partitions judged before are lost with it, their files deleted
        p = plan.startOver(BITS + " is missing");
      }
    }
    for (int attempt = 0; ; attempt++) {
      if (p == null) {
        int partitions = partitionsFor(recordsGuess, setBudget);
        p = PlanProgress.start(partitions, inputs);
      }
      if (!p.partitioned()) {
        p = plan.partition(p, inputs, settings, checkpointRecords, checkpointInterval);
      }
      DuplicateBits bits = DuplicateBits.open(dir.resolve(BITS), p.judged());
      try {
        if (plan.judgePartitions(p, bits) || attempt > 0) {
          return bits;
        }
      } catch (IOException | RuntimeException e) {
        bits.close();
        throw e;
      }
      bits.close();
      p = plan.startOver(BITS + " lost verdicts of partitions judged before");
    }
  }

  /**
   * Refuses a plan over inputs that no longer hold what its first pass read of them: its verdicts
   * are by record ordinal.
   */
  private static boolean checkInputs(
      PlanProgress p, List<InputFile> inputs, VerifyInputs mode, JobListener listener)
      throws IOException {
    if (p.inputs().size() != inputs.size()) {
      throw new JobException(
          "the job's plan was made from "
              + p.inputs().size()
              + " input file(s), and there are "
              + inputs.size()
              + " now; its verdicts are by record, so start over with a new --state");
    }
    for (int i = 0; i < inputs.size(); i++) {
      String d = p.inputs().get(i).differenceFrom(inputs.get(i));
      if (d != null) {
        throw new JobException(
            d + "; the job's plan of verdicts was made from it: start over with a new --state");
      }
    }
    InputPosition read =
        p.partitioned() ? InputPosition.allRead(p.position().ended()) : p.position();
    return ResumableRun.checkInputs(p.inputs(), inputs, read, mode, listener).verifyStart();
  }

  /** Whether the verdict bits of a plan judged to its end are the ones it recorded. */
  private boolean bitsMatch(PlanProgress p) throws IOException {
    Path file = dir.resolve(BITS);
    if (!Files.isRegularFile(file) || Files.size(file) != DuplicateBits.bytesFor(p.judged())) {
      return false;
    }
    if (p.bitsCrc() == null) {
      return true; // written by an idem that kept no checksum: nothing to check it against
    }
    try (DuplicateBits bits = DuplicateBits.open(file, p.judged())) {
      return bits.crc() == p.bitsCrc();
    }
  }

  /**
   * Deletes the plan, after {@code why} showed part of it lost, so that it is made again from the
   * inputs: the same inputs give the same verdicts, and the job's own checkpoint stays as it is.
   */
  private PlanProgress startOver(String why) throws IOException {
    listener.warning(
        dir
            + ": "
            + why
            + "; its verdicts are not trusted: the plan is made again from the inputs (checked "
            + "unchanged), which decides the same");
    try (var files = Files.list(dir)) {
      for (Path f : files.toList()) {
        Files.deleteIfExists(f);
      }
    }
    return null;
  }

  /** Partitions for {@code records} records, each of whose keys' set fits {@code setBudget}. */
  static int partitionsFor(long records, long setBudget) {
    double parts = Math.ceil(1.25 * Math.max(records, 1) / keysFitting(setBudget));
    return (int) Math.max(1, Math.min(MAX_PARTITIONS, parts));
  }

  /** The keys a {@link FingerprintSet} of at most {@code bytes} holds. */
  static long keysFitting(long bytes) {
    long keys = Math.max(1, (bytes - 256) * 3 / 64);
    while (keys > 1 && FingerprintSet.bytesFor(keys) > bytes) {
      keys -= keys / 64 + 1;
    }
    return keys;
  }

  private PlanProgress partition(
      PlanProgress p,
      List<InputFile> inputs,
      RecordSource.Settings settings,
      long checkpointRecords,
      Duration checkpointInterval)
      throws IOException {
    Files.deleteIfExists(dir.resolve(BITS)); // made for another count by a plan killed after it
    listener.note(
        "partitioned method: the keys go to "
            + p.partitions()
            + " partition file(s) in "
            + dir
            + ", each judged in memory; the records are written in a second read");
    int partitions = p.partitions();
    long judged = p.judged();
    InputPosition start = p.position();
    int fileIndex = start.fileIndex();
    try (RecordSource source =
            durable
                ? RecordSource.tracking(
                    inputs,
                    settings,
                    fileIndex,
                    start.offset(),
                    start.line(),
                    start.current(),
                    verifyStart)
                : new RecordSource(
                    inputs, settings, null, fileIndex, start.offset(), start.line());
        PartitionFiles files =
            PartitionFiles.open(
                dir, 0, p.lengths(), PartitionFiles.bufferBytes(setBudget, partitions))) {
      InputCursor cursor = durable ? new InputCursor(source.reads(), start, inputs.size()) : null;
      long since = 0;
      long lastCheckpoint = System.nanoTime();
      long before = InputFile.bytesBefore(inputs, fileIndex);
      PhaseReporter progress =
          new PhaseReporter(
              listener,
              PARTITION,
              PhaseProgress.Unit.BYTES,
              before,
              InputFile.bytesBefore(inputs, inputs.size()));
      while (true) {
        RecordBatch b = source.next();
        progress.at(before + source.rawBytesRead());
        long[] fp = b.fingerprints;
        for (int i = 0; i < b.count; i++) {
          if (b.kind[i] == RecordBatch.OK) {
            long lo = fp[2 * i + 1];
            files.add(PartitionFiles.partitionOf(lo, partitions, 0), fp[2 * i], lo, judged++);
          }
          if (cursor != null) {
            cursor.handled(b, i);
          }
        }
        since += b.count;
        boolean end = b.endOfInput;
        source.recycle(b);
        if (end) {
          break;
        }
        if (durable
            && (since >= FIRST_PASS_CHECKPOINT_SPREAD * checkpointRecords
                || System.nanoTime() - lastCheckpoint >= checkpointInterval.toNanos())) {
          files.force();
          crash.reached(Step.PARTITIONS_SYNCED);
          p.read(cursor.position(), judged, files.lengths(), false).save(dir);
          since = 0;
          lastCheckpoint = System.nanoTime();
        }
      }
      progress.end();
      if (durable) {
        files.force();
      } else {
        files.flush();
      }
      PlanProgress done =
          p.read(
              cursor == null ? InputPosition.START : cursor.finalPosition(),
              judged,
              files.lengths(),
              true);
      if (durable) {
        done.save(dir);
      }
      return done;
    }
  }

  /**
   * Judges the partitions not judged yet; returns whether the bits then hold every verdict, as many
   * set as duplicates were found (false: some set before were lost, and the plan must be made
   * again).
   */
  private boolean judgePartitions(PlanProgress p, DuplicateBits bits) throws IOException {
    PartitionJudge judge =
        new PartitionJudge(dir, setBudget, Arrays.stream(p.lengths()).max().orElse(0), bits);
    long duplicates = p.duplicates();
    PhaseReporter progress =
        new PhaseReporter(
            listener, JUDGE, PhaseProgress.Unit.PARTITIONS, p.partitionsJudged(), p.partitions());
    for (int i = p.partitionsJudged(); i < p.partitions(); i++) {
      progress.at(i);
      Path file = PartitionFiles.path(dir, 0, i);
      duplicates += judge.judge(file, p.lengths()[i]);
      bits.force();
      crash.reached(Step.PARTITION_JUDGED);
      boolean last = i + 1 == p.partitions();
      if (last && bits.count() != duplicates) {
        return false;
      }
      if (durable) {
        p.partitionsDone(i + 1, duplicates, last ? bits.crc() : null).save(dir);
      }
      Files.deleteIfExists(file);
    }
    progress.end();
    // a plan judged to its end before this run had its bits checked against their checksum
    return p.partitionsJudged() == p.partitions() || bits.count() == duplicates;
  }
}
