package dev.idem.engine.corpus;

import dev.idem.engine.output.OutputFile;
import dev.idem.engine.records.BadRecordPolicy;
import java.io.IOException;
import java.io.OutputStream;

/**
 * The files a corpus job writes: the cleaned documents (to standard output when there is neither
 * {@code --output} nor {@code --annotate}), {@code --dropped}, {@code --annotate} and the
 * quarantine file, each opened at the mark of the checkpoint the job goes on from, and the {@link
 * RemovalWriter} that writes the removed units to the middle two.
 */
final class CorpusOutputs {
  private final CorpusSpec spec;
  private final OutputStream stdout;

  /** Each {@code null} when not asked for, or not opened yet: {@link #close} closes what was. */
  OutputFile out;

  OutputFile dropped;
  OutputFile annotate;
  OutputFile quarantine;
  RemovalWriter removals;

  CorpusOutputs(CorpusSpec spec, OutputStream stdout) {
    this.spec = spec;
    this.stdout = stdout;
  }

  /** Opens each output at {@code from}'s mark, cutting it back to it ({@code null}: a new job). */
  void open(CorpusState.Progress from) throws IOException {
    CorpusState.Progress at = from == null ? CorpusState.Progress.START : from;
    if (spec.output() != null) {
      out = OutputFile.open(spec.output(), at.output());
    } else if (spec.annotate() == null) {
      out = OutputFile.stream("<stdout>", stdout);
    }
    if (spec.dropped() != null) {
      dropped = OutputFile.open(spec.dropped(), at.dropped());
    }
    if (spec.annotate() != null) {
      annotate = OutputFile.open(spec.annotate(), at.annotate());
    }
    if (spec.onBadRecord() instanceof BadRecordPolicy.Quarantine q) {
      quarantine = OutputFile.open(q.file(), at.quarantine());
    }
    removals = new RemovalWriter(spec.mode(), dropped, annotate);
  }

  /**
   * Where {@code f} stands, synced, for a checkpoint; an output not written stands at its start.
   */
  static OutputFile.Mark mark(OutputFile f) throws IOException {
    return f == null ? OutputFile.Mark.EMPTY : f.mark();
  }

  /** Writes out what is buffered, for a job without a state (whose end is not a checkpoint). */
  void flush() throws IOException {
    for (OutputFile f : new OutputFile[] {out, dropped, annotate, quarantine}) {
      if (f != null) {
        f.flush();
      }
    }
  }

  /**
   * Closes every output and the set's {@code journal} (or {@code null}), the first failure thrown.
   */
  void close(OutputFile journal) throws IOException {
    try (OutputFile o = out;
        OutputFile d = dropped;
        OutputFile a = annotate;
        OutputFile q = quarantine;
        OutputFile j = journal) {
      // nothing to do but close them
    }
  }
}
