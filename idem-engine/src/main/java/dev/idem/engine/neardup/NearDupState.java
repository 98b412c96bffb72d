package dev.idem.engine.neardup;

import dev.idem.engine.input.InputFile;
import dev.idem.engine.output.OutputFile;
import dev.idem.engine.records.InputRead;
import dev.idem.engine.run.CrashPoints;
import dev.idem.engine.run.InputPosition;
import dev.idem.engine.run.JobIdentity;
import dev.idem.engine.run.ResumableRun;
import dev.idem.engine.run.StateFile;
import java.io.IOException;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The {@code --state} of a near-dup job: {@code NEAR-DUP.json}, its identity and checkpoint ({@link
 * ResumableRun}), and {@code judged.bin} ({@link Judgement}) once the first read is done.
 *
 * <p>While judging, nothing is committed: a killed job judges again from the start (the work is
 * deterministic, so it decides the same), and a rerun may even change its options. Once judged, the
 * judgement is saved and the checkpoint says {@link Phase#WRITING}, with what the judging read of
 * every input: the judgement stands for those bytes, so a resume refuses inputs that no longer hold
 * them. From then on a checkpoint is taken every so many documents: the outputs flushed and synced,
 * then their marks, the input position and the counts written in one atomic replacement. A resume
 * cuts each output back to its mark (refusing a file changed since) and reads on from the position,
 * so the outputs are, byte for byte, those of an uninterrupted run.
 *
 * <p>A streaming job ({@code --streaming}) has no judgement to save: it checkpoints its writing
 * from the first document, and a resume judges again, without writing, every document up to the
 * checkpoint's position (the same decisions, as judging is deterministic), checking as it passes
 * that it reads there what it read the first time, then writes on.
 */
final class NearDupState {

  static final String FILE = "NEAR-DUP.json";

  enum Phase {
    JUDGING,
    WRITING,
    DONE
  }

  /** The crash points of a near-dup, besides the kernel's. */
  enum Step {
    /** {@code judged.bin} written, the checkpoint that commits it not yet. */
    JUDGEMENT_SAVED,
    /** A document handled by the writer. */
    DOCUMENT_WRITTEN,
    /** The outputs synced for a checkpoint, not yet committed. */
    OUTPUTS_SYNCED
  }

  /**
   * The first read's counts. A batch job's are final once judged; a streaming job's are those
   * through the position, with {@code clusters} its clusters so far ({@code null} for a batch job:
   * the judgement has them).
   */
  record Counts(
      long records,
      long documents,
      long exactDuplicates,
      long badRecords,
      long blankLines,
      long candidatePairs,
      long comparedPairs,
      long acceptedPairs,
      long quarantineBytes,
      Long clusters) {

    static final Counts NONE = new Counts(0, 0, 0, 0, 0, 0, 0, 0, 0, null);
  }

  /**
   * A checkpoint.
   *
   * @param position where the writing stands: after the last document written
   * @param judged a batch job's: what its judging read of every input, which the judgement stands
   *     for; {@code null} for a streaming job and in states written before idem kept it
   * @param doc documents written so far, kept or not
   * @param kept documents kept so far
   */
  record Progress(
      Phase phase,
      InputPosition position,
      List<InputRead> judged,
      int doc,
      long kept,
      OutputFile.Mark output,
      OutputFile.Mark dropped,
      OutputFile.Mark clusters,
      Counts counts) {

    static final Progress JUDGING =
        new Progress(
            Phase.JUDGING,
            InputPosition.START,
            null,
            0,
            0,
            OutputFile.Mark.EMPTY,
            OutputFile.Mark.EMPTY,
            OutputFile.Mark.EMPTY,
            Counts.NONE);

    /** The checkpoint that commits a judgement of {@code judged}: writing starts at the start. */
    static Progress judged(List<InputRead> judged, Counts counts) {
      return new Progress(
          Phase.WRITING,
          InputPosition.START,
          judged,
          0,
          0,
          OutputFile.Mark.EMPTY,
          OutputFile.Mark.EMPTY,
          OutputFile.Mark.EMPTY,
          counts);
    }
  }

  /** Version 2: the first in the state-file encoding. */
  static final ResumableRun.Layout<Progress> LAYOUT =
      new ResumableRun.Layout<>(
          "near-dup",
          FILE,
          2,
          Progress.class,
          NearDupState::legacy,
          p -> p.phase() != Phase.JUDGING);

  private NearDupState() {}

  /**
   * Opens (creating) the state at {@code path}. A state past judging that another command made is
   * refused, naming what differs; one still judging starts over as this command asks.
   */
  static ResumableRun<Progress> open(Path path, JobIdentity identity, CrashPoints crash)
      throws IOException {
    return ResumableRun.open(LAYOUT, path, identity, Progress.JUDGING, crash);
  }

  /** What a command asked that decides its outputs: a resume must ask the same. */
  static JobIdentity identity(NearDupSpec spec, List<InputFile> inputs) {
    Map<String, String> m = new LinkedHashMap<>();
    m.put("format", spec.format().toString());
    m.put("content", spec.content().describe());
    m.put("tokenizer", spec.tokenizer().toString());
    m.put("ngram", Integer.toString(spec.ngram()));
    m.put("normalize", spec.normalization().toString());
    m.put("threshold", Double.toString(spec.threshold()));
    m.put("num perm", Integer.toString(spec.numPerm()));
    m.put("bands", spec.bands().bands() + "x" + spec.bands().rows());
    m.put("verify", Boolean.toString(spec.verify()));
    m.put("seed", Long.toString(spec.seed()));
    m.put("output", OutputFile.absolute(spec.output()));
    m.put("dropped", OutputFile.absolute(spec.dropped()));
    m.put("clusters", OutputFile.absolute(spec.clusters()));
    m.put("max record bytes", Integer.toString(spec.maxRecordBytes()));
    if (spec.streaming()) {
      m.put("streaming", "true"); // only when given: states of batch jobs stay as they were
    }
    return new JobIdentity(LAYOUT.job(), inputs, m);
  }

  /** A checkpoint as idem wrote it before the state-file encoding: the identity inside it. */
  record LegacyProgress(
      Map<String, String> job,
      Phase phase,
      int fileIndex,
      long offset,
      long line,
      int doc,
      long kept,
      long outputBytes,
      Long outputTail,
      long droppedBytes,
      Long droppedTail,
      long clustersBytes,
      Long clustersTail,
      long records,
      long documents,
      long exactDuplicates,
      long badRecords,
      long blankLines,
      long candidatePairs,
      long comparedPairs,
      long acceptedPairs,
      long quarantineBytes,
      Long clusters) {}

  private static ResumableRun.Saved<Progress> legacy(StateFile.Contents json) throws IOException {
    LegacyProgress p = json.as(LegacyProgress.class);
    Map<String, String> settings = new LinkedHashMap<>(p.job());
    // what becomes of bad records decides no document's fate: no longer part of the identity
    settings.remove("on bad record");
    List<InputFile> inputs = JobIdentity.legacyInputs(settings.remove("inputs"));
    return new ResumableRun.Saved<>(
        new JobIdentity(LAYOUT.job(), inputs, settings),
        new Progress(
            p.phase(),
            new InputPosition(p.fileIndex(), p.offset(), p.line(), null, List.of()),
            null,
            p.doc(),
            p.kept(),
            new OutputFile.Mark(p.outputBytes(), p.outputTail()),
            new OutputFile.Mark(p.droppedBytes(), p.droppedTail()),
            new OutputFile.Mark(p.clustersBytes(), p.clustersTail()),
            new Counts(
                p.records(),
                p.documents(),
                p.exactDuplicates(),
                p.badRecords(),
                p.blankLines(),
                p.candidatePairs(),
                p.comparedPairs(),
                p.acceptedPairs(),
                p.quarantineBytes(),
                p.clusters())));
  }
}
