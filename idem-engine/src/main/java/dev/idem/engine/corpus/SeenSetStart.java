package dev.idem.engine.corpus;

import dev.idem.core.ByteSize;
import dev.idem.engine.JobException;
import dev.idem.engine.input.InputFile;
import dev.idem.engine.output.OutputFile;
import dev.idem.engine.run.JobListener;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;

/**
 * The set of what was seen that a corpus job starts with: for a new job, an exact set where a
 * sample of the inputs says it fits in {@code --memory}, else a Bloom filter as the options say (or
 * a refusal naming the memory an exact set needs); for a resumed job, the set its checkpoint names,
 * its snapshot read and its journal replayed. With a state, the set journals every key it takes.
 */
final class SeenSetStart {
  private SeenSetStart() {}

  /** A new set, journaling to {@code journal-0} in {@code stateDirectory} when there is one. */
  static SeenSet fresh(
      CorpusSpec spec, List<InputFile> inputs, JobListener listener, Path stateDirectory)
      throws IOException {
    SeenSet seen = create(spec, inputs, listener);
    if (stateDirectory != null) {
      seen.journalTo(
          OutputFile.open(CorpusState.journal(stateDirectory, 0), OutputFile.Mark.EMPTY), false);
    }
    return seen;
  }

  /** The set {@code from} names in {@code dir}, journaling on after what it replayed. */
  static SeenSet restored(CorpusSpec spec, Path dir, CorpusState.Progress from) throws IOException {
    long snapshot = from.snapshot();
    OutputFile journal = OutputFile.open(CorpusState.journal(dir, snapshot), from.journal());
    SeenSet seen;
    try {
      seen =
          SeenSet.restore(
              SeenSet.Structure.of(from.structure()),
              snapshot == 0 ? null : CorpusState.snapshot(dir, snapshot),
              CorpusState.journal(dir, snapshot),
              from.journal().length(),
              from.journalCrc(),
              from.expected(),
              spec.fpp() > 0 ? spec.fpp() : 0.001,
              spec.seed(),
              keys(spec));
    } catch (IOException | RuntimeException e) {
      journal.close();
      throw e;
    }
    seen.journalTo(journal, true);
    return seen;
  }

  /** The set a new job starts with: exact where it fits, else as the options say. */
  private static SeenSet create(CorpusSpec spec, List<InputFile> inputs, JobListener listener)
      throws IOException {
    String keys = keys(spec);
    if (spec.fpp() > 0) {
      if (spec.expected() > 0) {
        return SeenSet.create(
            SeenSet.Structure.BLOCKED, spec.expected(), spec.fpp(), spec.seed(), keys);
      }
      CorpusPlan.Estimate e = CorpusPlan.survey(spec, inputs);
      long guess = e == null ? 1 << 20 : e.keys(spec.mode());
      return SeenSet.create(SeenSet.Structure.SCALABLE, guess, spec.fpp(), spec.seed(), keys);
    }
    CorpusPlan.Estimate e = CorpusPlan.survey(spec, inputs);
    long guess = e == null ? 1 << 20 : Math.max(1, e.keys(spec.mode()));
    long heap = spec.memory() == Long.MAX_VALUE ? Runtime.getRuntime().maxMemory() : spec.memory();
    if (e == null || CorpusPlan.exactFits(guess, heap)) {
      return SeenSet.create(SeenSet.Structure.EXACT, guess, 0, spec.seed(), keys);
    }
    String need =
        String.format(
            Locale.ROOT,
            "an exact set of about %,d %s (guessed from a sample of %s of the inputs) needs %s "
                + "with room to grow, and --memory gives %s",
            guess,
            keys,
            ByteSize.format(e.sampledBytes()),
            ByteSize.format(2 * CorpusPlan.exactBytes(guess) + CorpusPlan.WORKING_BYTES),
            ByteSize.format(heap));
    if (spec.mode() == CorpusSpec.Mode.NGRAMS) {
      double fpp = 0.001;
      listener.note(
          need
              + String.format(
                  Locale.ROOT,
                  ": a Bloom filter that grows judges instead, at a false-positive rate of %s "
                      + "(about %s; --fpp sets another rate)",
                  fpp,
                  ByteSize.format(CorpusPlan.filterBytes(guess, fpp))));
      return SeenSet.create(SeenSet.Structure.SCALABLE, guess, fpp, spec.seed(), keys);
    }
    throw new JobException(
        need
            + String.format(
                Locale.ROOT,
                ". Give the job more memory (--memory %s), or judge with a Bloom filter (--fpp"
                    + " 0.001: about %s, a new paragraph removed with probability at most 0.001)",
                ByteSize.format(2 * CorpusPlan.exactBytes(guess) + CorpusPlan.WORKING_BYTES),
                ByteSize.format(CorpusPlan.filterBytes(guess, 0.001))));
  }

  /** What the set's keys are, for its messages. */
  private static String keys(CorpusSpec spec) {
    return spec.mode() == CorpusSpec.Mode.PARAGRAPHS ? "paragraphs" : "n-grams";
  }
}
