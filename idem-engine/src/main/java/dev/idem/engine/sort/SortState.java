package dev.idem.engine.sort;

import dev.idem.engine.input.InputFile;
import dev.idem.engine.output.OutputFile;
import dev.idem.engine.records.InputCheck;
import dev.idem.engine.records.VerifyInputs;
import dev.idem.engine.run.CrashPoints;
import dev.idem.engine.run.InputPosition;
import dev.idem.engine.run.JobIdentity;
import dev.idem.engine.run.JobListener;
import dev.idem.engine.run.ResumableRun;
import dev.idem.engine.run.StateFile;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The state of a resumable sort-dedup ({@code --state DIR}): its sorted runs in {@code runs/} and
 * {@code SORT-DEDUP.json}, the job's identity and last checkpoint ({@link ResumableRun}).
 *
 * <p>A checkpoint names every run that holds data still to merge, all synced to disk before it is
 * committed; runs it no longer names are deleted after it ({@link RunDirectory#deleteMerged}).
 * While reading, it is taken after each run is spilled and holds the input position after the last
 * record in the runs (with what was read, for the resume's input check), the counts, and the
 * quarantine file's mark; a resume cuts the quarantine back and reads on from there. While merging,
 * it is taken after each merge of a group of runs; a resume merges what it names, so only the merge
 * a kill interrupted is redone. The last merge writes the output, which a resume writes again from
 * its start; the job's last checkpoint says it is done and how long the output is.
 */
final class SortState {

  static final String FILE = "SORT-DEDUP.json";

  /** Where a job is. */
  enum Phase {
    /** Reading the inputs into runs by key. */
    READING,
    /** All read: merging the runs by key. */
    MERGING,
    /** Input order: the survivors are in runs by input position. */
    POSITIONS,
    /** The output is written. */
    DONE
  }

  /** The crash points of a sort-dedup, besides the kernel's. */
  enum Step {
    /** A run spilled and synced, the checkpoint naming it not yet committed. */
    RUN_SPILLED,
    /** A group of runs merged into one, synced; the checkpoint naming it not yet committed. */
    RUNS_MERGED,
    /** The output written and synced; the last checkpoint not yet committed. */
    OUTPUT_WRITTEN
  }

  /** A run a checkpoint names, by its file name in {@code runs/}. */
  record Run(String file, RunKind kind, long entries, long bytes) {}

  /**
   * A checkpoint.
   *
   * @param position after the last record in the runs, while reading
   * @param ordinal the position number the next record gets
   */
  record Progress(
      Phase phase,
      InputPosition position,
      long ordinal,
      long records,
      long blankLines,
      long badRecords,
      long bytesSeen,
      OutputFile.Mark quarantine,
      byte[] header,
      List<Run> runs,
      long kept,
      long outputBytes) {

    static final Progress START =
        new Progress(
            Phase.READING,
            InputPosition.START,
            0,
            0,
            0,
            0,
            0,
            OutputFile.Mark.EMPTY,
            null,
            List.of(),
            0,
            0);
  }

  /** The layout of a sort-dedup's state: version 2, the first in the state-file encoding. */
  static final ResumableRun.Layout<Progress> LAYOUT =
      new ResumableRun.Layout<>(
          "sort-dedup", FILE, 2, Progress.class, SortState::legacy, p -> true);

  private SortState() {}

  /** Opens (creating) the state at {@code path}; refuses a state of another job. */
  static ResumableRun<Progress> open(Path path, JobIdentity identity, CrashPoints crash)
      throws IOException {
    return ResumableRun.open(LAYOUT, path, identity, Progress.START, crash);
  }

  static Path runs(ResumableRun<Progress> state) {
    return state.directory().resolve("runs");
  }

  /** The runs a checkpoint names, as files. */
  static List<RunFile> runFiles(ResumableRun<Progress> state, Progress p) {
    List<RunFile> out = new ArrayList<>();
    for (Run r : p.runs()) {
      out.add(new RunFile(runs(state).resolve(r.file()), r.kind(), r.entries(), r.bytes()));
    }
    return out;
  }

  /** What a command asked that decides its output: a resume must ask the same. */
  static JobIdentity identity(SortDedupSpec spec, List<InputFile> inputs) {
    Map<String, String> m = new LinkedHashMap<>();
    m.put("format", spec.format().toString());
    m.put("key", spec.key().describe());
    m.put("header", Boolean.toString(spec.header()));
    m.put("normalize", spec.normalizer().spec());
    m.put("seed", Long.toString(spec.seed()));
    m.put("exact key", Boolean.toString(spec.exactKey()));
    m.put("memory", Long.toString(spec.memoryBytes()));
    m.put("keep", spec.keep().toString());
    m.put("order", spec.order().toString());
    m.put("output", OutputFile.absolute(spec.output()));
    m.put("max record bytes", Integer.toString(spec.maxRecordBytes()));
    return new JobIdentity(LAYOUT.job(), inputs, m);
  }

  /**
   * Refuses to resume over inputs that changed in what the job read of them: the runs hold records
   * read from them. After reading, that is all of every input. Returns whether the resume must
   * check the part read before of the input it reads on in ({@link InputCheck}).
   */
  static boolean checkInputs(
      ResumableRun<Progress> state,
      List<InputFile> inputs,
      Progress from,
      VerifyInputs verify,
      JobListener listener)
      throws IOException {
    InputPosition at = from.position();
    InputCheck.Outcome o = state.checkInputs(inputs, at, verify, listener);
    if (!o.vouched().isEmpty()) {
      state.commit(withPosition(from, ResumableRun.vouched(at, o)));
    }
    return o.verifyStart();
  }

  private static Progress withPosition(Progress p, InputPosition at) {
    return new Progress(
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

  static List<Run> named(List<RunFile> runs) {
    List<Run> out = new ArrayList<>();
    for (RunFile r : runs) {
      out.add(new Run(r.path().getFileName().toString(), r.kind(), r.entries(), r.bytes()));
    }
    return out;
  }

  /** A checkpoint as idem wrote it before the state-file encoding: the identity inside it. */
  record LegacyProgress(
      Map<String, String> job,
      Phase phase,
      int fileIndex,
      long offset,
      long line,
      long ordinal,
      long records,
      long blankLines,
      long badRecords,
      long bytesSeen,
      long quarantineBytes,
      Long quarantineTail,
      byte[] header,
      List<Run> runs,
      long kept,
      long outputBytes) {}

  private static ResumableRun.Saved<Progress> legacy(StateFile.Contents json) throws IOException {
    LegacyProgress p = json.as(LegacyProgress.class);
    Map<String, String> settings = new LinkedHashMap<>(p.job());
    List<InputFile> inputs = JobIdentity.legacyInputs(settings.remove("inputs"));
    return new ResumableRun.Saved<>(
        new JobIdentity(LAYOUT.job(), inputs, settings),
        new Progress(
            p.phase(),
            new InputPosition(p.fileIndex(), p.offset(), p.line(), null, List.of()),
            p.ordinal(),
            p.records(),
            p.blankLines(),
            p.badRecords(),
            p.bytesSeen(),
            new OutputFile.Mark(p.quarantineBytes(), p.quarantineTail()),
            p.header(),
            p.runs(),
            p.kept(),
            p.outputBytes()));
  }
}
