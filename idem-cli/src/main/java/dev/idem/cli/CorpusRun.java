package dev.idem.cli;

import dev.idem.engine.corpus.CorpusJob;
import dev.idem.engine.corpus.CorpusResult;
import dev.idem.engine.corpus.CorpusSpec;
import dev.idem.engine.output.OutputGuard;
import dev.idem.engine.records.BadRecordException;
import java.io.IOException;
import java.util.Locale;

/**
 * Runs a corpus job for {@code idem dedup --unit} and {@code idem decontaminate}: the paths refused
 * before anything is written, the job with the progress display as its listener, and the summary on
 * standard error (and {@code --stats-json}, the result's report).
 */
final class CorpusRun {

  private final Io io;
  private final String command;
  private final OutputOptions output;
  private final BadRecordOptions badRecords;

  CorpusRun(Io io, String command, OutputOptions output, BadRecordOptions badRecords) {
    this.io = io;
    this.command = command;
    this.output = output;
    this.badRecords = badRecords;
  }

  int run(CorpusSpec spec) throws IOException {
    refuseDestructivePaths(spec);
    if (spec.state() != null) {
      Signals.whenStopped(() -> Signals.resumable(command, spec.state(), ""));
    }
    ProgressDisplay display = new ProgressDisplay(io, command, output.quiet);
    CorpusResult r;
    try {
      Terminal.sayWhenReadingTheTerminal(io, command, spec.inputs(), "documents");
      r = CorpusJob.run(spec, io.in(), io.data(), display);
    } catch (BadRecordException e) {
      throw new UserException(e.getMessage());
    } finally {
      display.close();
    }
    output.writeStats(io, r);
    if (!output.quiet) {
      summary(spec, r);
    }
    return 0;
  }

  /** Refuses outputs that are inputs, lie in the state directory, or are each other. */
  private void refuseDestructivePaths(CorpusSpec s) throws IOException {
    OutputGuard guard =
        new OutputGuard()
            .resumable(s.state() != null)
            .inputs(s.inputs())
            .inputs(s.against())
            .stateDirectory("--state " + s.state(), s.state());
    if (s.output() == null && s.annotate() == null) {
      guard.standardOutput();
    }
    guard
        .output("-o " + s.output(), s.output())
        .output("--dropped " + s.dropped(), s.dropped())
        .output("--annotate " + s.annotate(), s.annotate());
    badRecords.addQuarantineTo(guard);
    guard.summary("--stats-json " + output.statsJson, output.statsFile()).check();
  }

  private void summary(CorpusSpec spec, CorpusResult r) {
    var err = io.err();
    if (r.alreadyDone()) {
      err.printf(
          Locale.ROOT,
          "%s: the job in this --state is already complete (%,d documents, %,d kept); nothing to "
              + "do. Use a new --state directory to run it again.%n",
          command,
          r.documents(),
          r.kept());
      return;
    }
    err.printf(
        Locale.ROOT,
        "%s: %,d documents, %,d kept (%,d of them with paragraphs removed), %,d removed whole, "
            + "%,d dropped as too short, %,d bad records%s%n",
        command,
        r.documents(),
        r.kept(),
        r.changed(),
        r.removedDocuments(),
        r.shortDocuments(),
        r.badRecords(),
        r.blankLines() > 0
            ? String.format(Locale.ROOT, ", %,d blank lines skipped", r.blankLines())
            : "");
    if (spec.mode() == CorpusSpec.Mode.DECONTAMINATE && spec.unit() == CorpusSpec.Unit.DOCUMENT) {
      err.printf(
          Locale.ROOT, "  %.2f %% of the text removed (whole documents)%n", 100 * r.removedShare());
    } else {
      err.printf(
          Locale.ROOT,
          "  paragraphs: %,d, %,d judged, %,d removed (%.2f %% of those judged); %.2f %% of the "
              + "text removed%n",
          r.paragraphs(),
          r.judgedParagraphs(),
          r.removedParagraphs(),
          r.judgedParagraphs() == 0 ? 0.0 : 100.0 * r.removedParagraphs() / r.judgedParagraphs(),
          100 * r.removedShare());
    }
    if (spec.byNgrams()) {
      err.printf(
          Locale.ROOT,
          "  n-grams: %,d judged, %,d %s (%.2f %%)%n",
          r.grams(),
          r.seenGrams(),
          spec.mode() == CorpusSpec.Mode.DECONTAMINATE
              ? "found in the evaluation sets"
              : "seen before",
          r.grams() == 0 ? 0.0 : 100.0 * r.seenGrams() / r.grams());
    }
    err.printf(Locale.ROOT, "  judged by: %s%n", r.set());
    if (r.expectedRate() > 0) {
      err.printf(
          Locale.ROOT,
          "  a new unit was removed by false positives alone with probability at most %.3g%n",
          r.unitRateBound());
    }
    err.printf(Locale.ROOT, "  %.1f s%n", r.millis() / 1000.0);
  }
}
