package dev.idem.engine.corpus;

import dev.idem.engine.input.InputFile;
import dev.idem.engine.output.OutputFile;
import dev.idem.engine.run.CrashPoints;
import dev.idem.engine.run.InputPosition;
import dev.idem.engine.run.JobIdentity;
import dev.idem.engine.run.ResumableRun;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Stream;

/**
 * The {@code --state} of a corpus job, on the job kernel ({@link ResumableRun}): {@code
 * CORPUS.json} (its identity and last checkpoint), and for the dedup modes the set of what was
 * seen, as {@code seen-<c>.snap} (the set whole at checkpoint c, {@code FilterSnapshot}) and {@code
 * journal-<c>} (every key taken since, 16 bytes each, in order).
 *
 * <p>A checkpoint flushes and syncs the outputs and the journal, writes a snapshot when one is due
 * (then starts a new journal), and replaces {@code CORPUS.json} atomically with the position, the
 * outputs' and the journal's marks, the journal's CRC32C and the counts; what it no longer names is
 * deleted after. A resume checks the inputs, deletes what the checkpoint does not name, reads the
 * snapshot and replays the journal up to its mark (refusing one whose checksum differs), cuts every
 * output back to its mark and reads on from the position: the records after it meet the set they
 * met the first time, so the outputs are byte for byte those of an uninterrupted run.
 */
final class CorpusState {

  static final String FILE = "CORPUS.json";

  /** A corpus job's crash points, besides the kernel's. */
  enum Step {
    /** A document judged and written. */
    DOCUMENT_HANDLED,
    /** The outputs and the journal synced for a checkpoint, not yet committed. */
    OUTPUTS_SYNCED,
    /** A snapshot of the set written for a checkpoint, not yet committed. */
    SNAPSHOT_WRITTEN
  }

  /** What a job counted, through its position. */
  record Counts(
      long records,
      long documents,
      long blankLines,
      long badRecords,
      long kept,
      long changed,
      long removedDocuments,
      long shortDocuments,
      long paragraphs,
      long judgedParagraphs,
      long removedParagraphs,
      long grams,
      long seenGrams,
      long contentChars,
      long removedChars) {

    static final Counts NONE = new Counts(0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0);
  }

  /**
   * A checkpoint.
   *
   * @param sequence 0 for a job that has committed nothing
   * @param structure how the set is kept ({@link SeenSet.Structure}), chosen when the job began
   * @param expected the keys the set was made for ({@link SeenSet#expected}), from a sample when
   *     the job began: a set restored without a snapshot is made for as many
   * @param snapshot the checkpoint whose {@code seen-<s>.snap} holds the set; 0: none, the set
   *     starts empty
   * @param journal {@code journal-<snapshot>}'s mark
   * @param journalCrc the CRC32C of the journal's bytes up to its mark
   */
  record Progress(
      long sequence,
      InputPosition position,
      Counts counts,
      OutputFile.Mark output,
      OutputFile.Mark dropped,
      OutputFile.Mark annotate,
      OutputFile.Mark quarantine,
      String structure,
      long expected,
      long snapshot,
      OutputFile.Mark journal,
      long journalCrc,
      boolean complete) {

    static final Progress START =
        new Progress(
            0,
            InputPosition.START,
            Counts.NONE,
            OutputFile.Mark.EMPTY,
            OutputFile.Mark.EMPTY,
            OutputFile.Mark.EMPTY,
            OutputFile.Mark.EMPTY,
            null,
            0,
            0,
            OutputFile.Mark.EMPTY,
            0,
            false);
  }

  /**
   * Version 2: the state-file encoding's first (version 1 is a bare JSON file, which never was).
   */
  static final ResumableRun.Layout<Progress> LAYOUT =
      new ResumableRun.Layout<>("corpus", FILE, 2, Progress.class, null, p -> p.sequence() > 0);

  private CorpusState() {}

  static ResumableRun<Progress> open(Path path, JobIdentity identity, CrashPoints crash)
      throws IOException {
    return ResumableRun.open(LAYOUT, path, identity, Progress.START, crash);
  }

  static Path snapshot(Path dir, long sequence) {
    return dir.resolve("seen-" + sequence + ".snap");
  }

  static Path journal(Path dir, long sequence) {
    return dir.resolve("journal-" + sequence);
  }

  /**
   * Deletes the snapshots, journals and temporary files in {@code dir} that the checkpoint {@code
   * from} does not name ({@code null}: a new job, which names none).
   */
  static void deleteUnnamed(Path dir, Progress from) throws IOException {
    long keep = from == null ? -1 : from.snapshot();
    try (Stream<Path> files = Files.list(dir)) {
      for (Path f : files.toList()) {
        String name = f.getFileName().toString();
        boolean ours =
            name.startsWith(".seen-")
                || (name.startsWith("seen-") && !name.equals("seen-" + keep + ".snap"))
                || (name.startsWith("journal-") && !name.equals("journal-" + keep));
        if (ours) {
          Files.deleteIfExists(f);
        }
      }
    }
  }

  /** What a command asked that decides its outputs: a resume must ask the same. */
  static JobIdentity identity(CorpusSpec spec, List<InputFile> inputs, List<InputFile> against) {
    Map<String, String> m = new LinkedHashMap<>();
    m.put("mode", spec.mode().name().toLowerCase(Locale.ROOT));
    m.put("content", spec.content().describe());
    m.put("split", spec.split().toString());
    m.put("min paragraph chars", Integer.toString(spec.minParagraphChars()));
    if (spec.mode() == CorpusSpec.Mode.PARAGRAPHS) {
      m.put("normalize", spec.paragraphNormalizer().spec());
      m.put("min doc chars", Integer.toString(spec.minDocChars()));
    } else {
      m.put("normalize", spec.normalization().toString());
      m.put("tokenizer", spec.tokenizer().name().toLowerCase(Locale.ROOT));
      m.put("ngram", Integer.toString(spec.ngram()));
      m.put("threshold", Double.toString(spec.threshold()));
    }
    if (spec.mode() == CorpusSpec.Mode.NGRAMS) {
      m.put("document threshold", Double.toString(spec.documentThreshold()));
      m.put("min doc chars", Integer.toString(spec.minDocChars()));
    }
    if (spec.mode() == CorpusSpec.Mode.DECONTAMINATE) {
      m.put("unit", spec.unit().toString());
      m.put("against content", spec.againstContent().describe());
      StringBuilder a = new StringBuilder();
      for (InputFile f : against) {
        a.append(a.length() == 0 ? "" : ", ")
            .append(f.path())
            .append(" (")
            .append(f.size())
            .append(" bytes, head CRC32C ")
            .append(f.headCrc())
            .append(')');
      }
      m.put("against", a.toString());
      if (spec.minDocChars() != 1 && spec.unit() == CorpusSpec.Unit.PARAGRAPH) {
        m.put("min doc chars", Integer.toString(spec.minDocChars()));
      }
    }
    m.put("fpp", Double.toString(spec.fpp()));
    m.put("expected", Long.toString(spec.expected()));
    m.put("seed", Long.toString(spec.seed()));
    m.put("output", OutputFile.absolute(spec.output()));
    m.put("dropped", OutputFile.absolute(spec.dropped()));
    m.put("annotate", OutputFile.absolute(spec.annotate()));
    if (spec.annotate() != null) {
      m.put("id", spec.id().describe());
    }
    m.put("max record bytes", Integer.toString(spec.maxRecordBytes()));
    return new JobIdentity(LAYOUT.job(), inputs, m);
  }
}
