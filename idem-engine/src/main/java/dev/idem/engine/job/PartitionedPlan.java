package dev.idem.engine.job;

import dev.idem.core.filter.FingerprintSet;
import dev.idem.engine.JobException;
import dev.idem.engine.records.InputFile;
import dev.idem.engine.records.RecordBatch;
import dev.idem.engine.records.RecordSource;
import dev.idem.engine.run.Json;
import dev.idem.engine.run.StateDirectory;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;

/**
 * The partitioned method of exact dedup, for exact sets larger than the memory a job may use: the
 * verdicts are worked out before any record is written, in two passes whose memory is bounded by a
 * budget, and the job's usual loop then writes the records in one more read of the inputs, asking
 * {@link PlannedJudge} for each verdict.
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
 * checkpointInterval}): the partition files are synced and {@code progress.json} records the input
 * position, the count of judged records and the files' lengths; a resume cuts the files back to
 * those lengths and reads on from there. The second pass records each partition done after its
 * marks are synced; a resume redoes the one in progress, which sets the same bits again. The
 * inputs' identities are kept with the plan, and a resume over inputs that changed is refused: the
 * verdicts are by record ordinal.
 */
final class PartitionedPlan {

  static final String PROGRESS = "progress.json";
  static final String BITS = "duplicates.bits";

  /**
   * The first pass checkpoints this many times fewer records apart than the job: a checkpoint syncs
   * every partition file, and what a kill makes it redo (read, hash, append 24 bytes) is cheap. Its
   * time interval is the job's.
   */
  static final int FIRST_PASS_CHECKPOINT_SPREAD = 16;

  /** The most files the first pass writes at once. */
  static final int MAX_PARTITIONS = 512; // each an open file: well under the usual limit of 1024

  /** What the plan has done, as {@code progress.json} records it. */
  record Progress(
      int partitions,
      List<InputFile> inputs,
      int fileIndex,
      long offset,
      long line,
      long judged,
      long[] lengths,
      boolean partitioned,
      int partitionsJudged) {

    /** The first pass at a position, with the files' lengths there; {@code done} at its end. */
    Progress read(
        int fileIndex, long offset, long line, long judged, long[] lengths, boolean done) {
      return new Progress(partitions, inputs, fileIndex, offset, line, judged, lengths, done, 0);
    }

    /** The second pass with {@code n} partitions judged. */
    Progress partitionsDone(int n) {
      return new Progress(
          partitions, inputs, fileIndex, offset, line, judged, lengths, partitioned, n);
    }
  }

  private final Path dir;
  private final boolean durable;
  private final long setBudget;
  private final DedupJob.Listener listener;

  private PartitionedPlan(Path dir, boolean durable, long setBudget, DedupJob.Listener listener) {
    this.dir = dir;
    this.durable = durable;
    this.setBudget = setBudget;
    this.listener = listener;
  }

  /**
   * Makes (or finishes) the verdicts of a job's inputs in {@code dir}.
   *
   * @param durable whether {@code dir} is in a state directory: then the plan checkpoints and a
   *     later run resumes it
   * @param setBudget the bytes the in-memory set of one partition may take
   * @param recordsGuess how many records the inputs hold, about (sizes the partitions)
   * @param listener what the plan tells the user: its partition count, the progress of its {@link
   *     DedupJob.Step#PARTITION} and {@link DedupJob.Step#JUDGE} steps
   */
  static DuplicateBits run(
      Path dir,
      boolean durable,
      List<InputFile> inputs,
      RecordSource.Settings settings,
      long setBudget,
      long recordsGuess,
      long checkpointRecords,
      Duration checkpointInterval,
      DedupJob.Listener listener)
      throws IOException {
    Files.createDirectories(dir);
    PartitionedPlan plan = new PartitionedPlan(dir, durable, setBudget, listener);
    Progress p = durable ? plan.readProgress() : null;
    if (p == null) {
      int partitions = partitionsFor(recordsGuess, setBudget);
      p = new Progress(partitions, inputs, 0, 0, 0, 0, new long[partitions], false, 0);
    } else {
      checkInputs(p.inputs(), inputs);
    }
    if (!p.partitioned()) {
      p = plan.partition(p, inputs, settings, checkpointRecords, checkpointInterval);
    }
    DuplicateBits bits = DuplicateBits.open(dir.resolve(BITS), p.judged());
    try {
      plan.judgePartitions(p, bits);
    } catch (IOException | RuntimeException e) {
      bits.close();
      throw e;
    }
    return bits;
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

  private Progress partition(
      Progress p,
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
    int fileIndex = p.fileIndex();
    long offset = p.offset();
    long line = p.line();
    try (RecordSource source = new RecordSource(inputs, settings, null, fileIndex, offset, line);
        PartitionFiles files = PartitionFiles.open(dir, 0, p.lengths(), bufferBytes(partitions))) {
      long since = 0;
      long lastCheckpoint = System.nanoTime();
      long before = DedupJob.bytesBefore(inputs, fileIndex);
      StepProgress progress =
          new StepProgress(
              listener,
              DedupJob.Step.PARTITION,
              before,
              DedupJob.bytesBefore(inputs, inputs.size()));
      while (true) {
        RecordBatch b = source.next();
        progress.at(before + source.rawBytesRead());
        long[] fp = b.fingerprints;
        for (int i = 0; i < b.count; i++) {
          if (b.kind[i] == RecordBatch.OK) {
            long lo = fp[2 * i + 1];
            files.add(PartitionFiles.partitionOf(lo, partitions, 0), fp[2 * i], lo, judged++);
          }
        }
        if (b.count > 0) {
          fileIndex = b.fileIndex[b.count - 1];
          offset = b.endOffset[b.count - 1];
          line = b.endLine[b.count - 1];
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
          writeProgress(p.read(fileIndex, offset, line, judged, files.lengths(), false));
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
      Progress done = p.read(fileIndex, offset, line, judged, files.lengths(), true);
      if (durable) {
        writeProgress(done);
      }
      return done;
    }
  }

  private void judgePartitions(Progress p, DuplicateBits bits) throws IOException {
    long largest = Arrays.stream(p.lengths()).max().orElse(0) / PartitionFiles.ENTRY_BYTES;
    long fitting = keysFitting(setBudget);
    FingerprintSet set = null;
    StepProgress progress =
        new StepProgress(listener, DedupJob.Step.JUDGE, p.partitionsJudged(), p.partitions());
    for (int i = p.partitionsJudged(); i < p.partitions(); i++) {
      progress.at(i);
      Path file = PartitionFiles.path(dir, 0, i);
      long records = p.lengths()[i] / PartitionFiles.ENTRY_BYTES;
      if (records <= fitting) {
        if (set == null) {
          set = FingerprintSet.withExpectedSize(Math.min(largest, fitting));
        }
        judge(file, p.lengths()[i], set, bits);
      } else {
        set = null; // the split's sets are its own
        judgeSplit(file, p.lengths()[i], 1, bits, fitting);
      }
      bits.force();
      if (durable) {
        writeProgress(p.partitionsDone(i + 1));
      }
      Files.deleteIfExists(file);
    }
    progress.end();
  }

  /**
   * Marks the later occurrences among the first {@code length} bytes of entries in {@code file}.
   */
  private static void judge(Path file, long length, FingerprintSet set, DuplicateBits bits)
      throws IOException {
    set.clear();
    forEachEntry(
        file,
        length,
        (hi, lo, ordinal) -> {
          if (!set.addIfAbsent(hi, lo)) {
            bits.mark(ordinal);
          }
        });
  }

  /** Splits a partition too large for the budget by other fingerprint bits, then judges each. */
  private void judgeSplit(Path file, long length, int level, DuplicateBits bits, long fitting)
      throws IOException {
    long records = length / PartitionFiles.ENTRY_BYTES;
    int parts = (int) Math.min(MAX_PARTITIONS, Math.ceil(1.25 * records / fitting) + 1);
    PartitionFiles.delete(dir, level);
    long[] lengths;
    try (PartitionFiles split =
        PartitionFiles.open(dir, level, new long[parts], bufferBytes(parts))) {
      forEachEntry(
          file,
          length,
          (hi, lo, ordinal) ->
              split.add(PartitionFiles.partitionOf(lo, parts, level), hi, lo, ordinal));
      split.flush(); // not synced: a split is redone whole when the plan resumes
      lengths = split.lengths();
    }
    for (int i = 0; i < parts; i++) {
      Path part = PartitionFiles.path(dir, level, i);
      if (lengths[i] / PartitionFiles.ENTRY_BYTES <= fitting || level >= 3) {
        // three levels of other bits that all crowd one part: the keys are that many, not skewed
        judge(
            part,
            lengths[i],
            FingerprintSet.withExpectedSize(
                Math.min(lengths[i] / PartitionFiles.ENTRY_BYTES, fitting)),
            bits);
      } else {
        judgeSplit(part, lengths[i], level + 1, bits, fitting);
      }
      Files.deleteIfExists(part);
    }
  }

  /** Write buffers for {@code partitions} files: together a quarter of the set's budget at most. */
  private int bufferBytes(int partitions) {
    int bytes = (int) Math.max(4096, Math.min(64 << 10, setBudget / 4 / partitions));
    return bytes - bytes % PartitionFiles.ENTRY_BYTES;
  }

  /** Receives the entries of a partition file. */
  @FunctionalInterface
  interface EntryConsumer {
    void accept(long hi, long lo, long ordinal) throws IOException;
  }

  static void forEachEntry(Path file, long length, EntryConsumer action) throws IOException {
    ByteBuffer b =
        ByteBuffer.allocate(PartitionFiles.ENTRY_BYTES * 43_690) // about 1 MiB
            .order(ByteOrder.LITTLE_ENDIAN);
    try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
      long left = length;
      while (left > 0) {
        b.clear();
        if (b.capacity() > left) {
          b.limit((int) left);
        }
        while (b.hasRemaining()) {
          if (ch.read(b) < 0) {
            throw new IOException(
                file + ": ends before the " + length + " bytes the plan recorded: it was damaged");
          }
        }
        b.flip();
        left -= b.remaining();
        while (b.hasRemaining()) {
          action.accept(b.getLong(), b.getLong(), b.getLong());
        }
      }
    }
  }

  private Progress readProgress() throws IOException {
    Path file = dir.resolve(PROGRESS);
    if (!Files.exists(file)) {
      return null;
    }
    try {
      return Json.read(Files.readAllBytes(file), Progress.class);
    } catch (IOException e) {
      throw new IOException(file + ": unreadable (" + e.getMessage() + "); the state was damaged");
    }
  }

  private void writeProgress(Progress p) throws IOException {
    StateDirectory.writeAtomically(dir, PROGRESS, Json.write(p));
  }

  /** Refuses inputs that are not the ones the plan was made from. */
  private static void checkInputs(List<InputFile> planned, List<InputFile> now)
      throws JobException {
    if (planned.size() != now.size()) {
      throw new JobException(
          "the job's plan was made from "
              + planned.size()
              + " input file(s), and there are "
              + now.size()
              + " now; its verdicts are by record, so start over with a new --state");
    }
    for (int i = 0; i < now.size(); i++) {
      String d = planned.get(i).differenceFrom(now.get(i));
      if (d != null) {
        throw new JobException(
            d + "; the job's plan of verdicts was made from it: start over with a new --state");
      }
    }
  }
}
