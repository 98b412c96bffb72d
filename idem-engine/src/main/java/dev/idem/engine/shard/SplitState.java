package dev.idem.engine.shard;

import dev.idem.engine.input.InputFile;
import dev.idem.engine.output.OutputFile;
import dev.idem.engine.records.InputRead;
import dev.idem.engine.run.InputPosition;
import dev.idem.engine.run.JobIdentity;
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
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The state of a split, {@code DIR/.idem-split/checkpoint.json} on the job kernel ({@link
 * ResumableRun}): its checkpoint (the input position, each shard file's mark and record count), its
 * crash points, the identity a resume must match, and the reading of checkpoints written before the
 * state-file encoding.
 */
final class SplitState {

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

  static final String DIRECTORY = ".idem-split";
  static final String FILE = "checkpoint.json";

  /** Version 2: the first in the state-file encoding, with the shards' tail checksums. */
  static final ResumableRun.Layout<Checkpoint> LAYOUT =
      new ResumableRun.Layout<>("split", FILE, 2, Checkpoint.class, SplitState::legacy, c -> true);

  private SplitState() {}

  /** Whether {@code stateDir} holds a split's checkpoint. */
  static boolean exists(Path stateDir) {
    return Files.exists(stateDir.resolve(FILE));
  }

  /** {@code c} at {@code at}: where a resume's input check vouched for the inputs. */
  static Checkpoint withPosition(Checkpoint c, InputPosition at) {
    return new Checkpoint(
        at, c.records(), c.badRecords(), c.shards(), c.perShard(), c.quarantine(), c.complete());
  }

  /** What the command asked that decides the shards: a resume must ask the same. */
  static JobIdentity identity(SplitSpec spec, List<InputFile> inputs) {
    Map<String, String> m = new LinkedHashMap<>();
    m.put("format", spec.format().displayName());
    m.put("key", spec.key().describe());
    m.put("header", Boolean.toString(spec.header()));
    m.put("normalize", spec.normalizer().spec());
    m.put("ring", spec.ring().describe());
    m.put("compress", spec.compression().name().toLowerCase(Locale.ROOT));
    return new JobIdentity(LAYOUT.job(), inputs, m);
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
}
