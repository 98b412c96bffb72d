package dev.idem.engine.partition;

import dev.idem.engine.input.InputFile;
import dev.idem.engine.run.InputPosition;
import dev.idem.engine.run.StateFile;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;

/**
 * What a {@link PartitionedPlan} has done, as {@code progress.json} (a {@link StateFile} of kind
 * {@code partitioned-plan}, version 2) records it.
 *
 * @param position where the first pass stands, with what it read; once partitioned, every input
 *     read to its end
 * @param judged the records the first pass gave an ordinal: the judged records read so far
 * @param lengths the partition files' lengths at {@code position}
 * @param duplicates the later occurrences found by the partitions judged so far
 * @param bitsCrc the CRC32C of {@code duplicates.bits} once every partition is judged; {@code null}
 *     before, and in plans written before idem kept it
 */
record PlanProgress(
    int partitions,
    List<InputFile> inputs,
    InputPosition position,
    long judged,
    long[] lengths,
    boolean partitioned,
    int partitionsJudged,
    long duplicates,
    Long bitsCrc) {

  static final String FILE = "progress.json";

  private static final String KIND = "partitioned-plan";

  private static final int VERSION = 2;

  /** A plan of {@code partitions} partitions over {@code inputs}, nothing done. */
  static PlanProgress start(int partitions, List<InputFile> inputs) {
    return new PlanProgress(
        partitions, inputs, InputPosition.START, 0, new long[partitions], false, 0, 0, null);
  }

  /** The first pass at {@code at}, with the files' lengths there; {@code done} at its end. */
  PlanProgress read(InputPosition at, long judged, long[] lengths, boolean done) {
    return new PlanProgress(partitions, inputs, at, judged, lengths, done, 0, 0, null);
  }

  /** The second pass with {@code n} partitions judged, which found {@code duplicates} in all. */
  PlanProgress partitionsDone(int n, long duplicates, Long bitsCrc) {
    return new PlanProgress(
        partitions, inputs, position, judged, lengths, partitioned, n, duplicates, bitsCrc);
  }

  boolean judgedAll() {
    return partitioned && partitionsJudged == partitions;
  }

  /** The progress recorded in {@code dir}; {@code null} when there is none. */
  static PlanProgress load(Path dir) throws IOException {
    StateFile.Contents c = StateFile.read(dir.resolve(FILE), KIND, VERSION);
    if (c == null) {
      return null;
    }
    if (c.version() != StateFile.LEGACY_VERSION) {
      return c.as(PlanProgress.class);
    }
    Legacy l = c.as(Legacy.class);
    return new PlanProgress(
        l.partitions(),
        l.inputs(),
        new InputPosition(l.fileIndex(), l.offset(), l.line(), null, null),
        l.judged(),
        l.lengths(),
        l.partitioned(),
        l.partitionsJudged(),
        0,
        null);
  }

  /** Records this progress in {@code dir}, atomically. */
  void save(Path dir) throws IOException {
    StateFile.write(dir.resolve(FILE), KIND, VERSION, this);
  }

  /** {@code progress.json} as idem wrote it before the state-file encoding. */
  private record Legacy(
      int partitions,
      List<InputFile> inputs,
      int fileIndex,
      long offset,
      long line,
      long judged,
      long[] lengths,
      boolean partitioned,
      int partitionsJudged) {}
}
