package dev.idem.engine.corpus;

import dev.idem.core.ByteSize;
import dev.idem.core.Fingerprinter;
import dev.idem.core.filter.MembershipFilter;
import dev.idem.core.filter.StripedFingerprintSet;
import dev.idem.engine.JobException;
import dev.idem.engine.input.InputFile;
import dev.idem.engine.input.InputPaths;
import dev.idem.engine.output.OutputFile;
import dev.idem.engine.output.OutputGuard;
import dev.idem.engine.records.BadRecordException;
import dev.idem.engine.records.BadRecordPolicy;
import dev.idem.engine.records.InputCheck;
import dev.idem.engine.records.KeyExtractor;
import dev.idem.engine.records.KeySpec;
import dev.idem.engine.records.RecordBatch;
import dev.idem.engine.records.RecordFormat;
import dev.idem.engine.records.RecordSource;
import dev.idem.engine.run.CrashPoints;
import dev.idem.engine.run.InputCursor;
import dev.idem.engine.run.InputPosition;
import dev.idem.engine.run.JobListener;
import dev.idem.engine.run.PhaseProgress;
import dev.idem.engine.run.PhaseReporter;
import dev.idem.engine.run.ResumableRun;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Stream;

/**
 * Cleans a corpus of JSON Lines documents at the granularity of paragraphs and n-grams, in one read
 * (docs/CORPUS.md):
 *
 * <ul>
 *   <li>{@link CorpusSpec.Mode#PARAGRAPHS}: each paragraph's first occurrence in input order stays;
 *       every later one is removed from its document.
 *   <li>{@link CorpusSpec.Mode#NGRAMS}: a paragraph whose n-grams were seen before in at least the
 *       threshold's share is removed (BFF's rule), and with a document threshold a document whose
 *       n-grams were; every n-gram of every judged paragraph then counts as seen.
 *   <li>{@link CorpusSpec.Mode#DECONTAMINATE}: a document (or paragraph) holding n-grams of the
 *       evaluation sets is removed; the evaluation sets' n-grams are a set read only.
 * </ul>
 *
 * <p>A document keeps everything but its content field byte for byte: the content is written again
 * as a JSON string of what is left (the text minus the spans removed, a span being a paragraph and
 * its separator), and a document whose paragraphs were all removed, or that is left shorter than
 * {@code --min-doc-chars}, is dropped. Each removed unit goes to {@code --dropped}, and {@code
 * --annotate} writes each document's removable spans in dolma's attribute layout.
 *
 * <p>Documents are parsed and hashed on N threads a batch at a time, and judged on the job's thread
 * in input order, so the first occurrence survives and the output is the same for any N. With a
 * state ({@link CorpusState}) the job checkpoints through the kernel and a killed job, run again,
 * writes what an uninterrupted run writes.
 */
public final class CorpusJob {

  /** The phase its progress reports name: the one read. */
  public static final String PHASE = "clean";

  private final CorpusSpec spec;
  private final InputStream stdin;
  private final OutputStream stdout;
  private final JobListener listener;
  private final CrashPoints crash;
  private final List<String> warnings = new ArrayList<>();

  /** What the job counted, through the record it is at. */
  private final CorpusTally tally = new CorpusTally();

  private SeenSet seen;
  private MembershipFilter against;
  private long againstGrams;
  private ResumableRun<CorpusState.Progress> state;
  private List<InputFile> inputs;
  private InputCursor cursor;
  private long sequence;
  private long snapshot;
  private OutputFile out;
  private OutputFile dropped;
  private OutputFile annotate;
  private OutputFile quarantine;
  private RemovalWriter removals;
  private UnitJudge judge;
  private final TextBytes line = new TextBytes();
  private final StringBuilder left = new StringBuilder();

  private CorpusJob(
      CorpusSpec spec,
      InputStream stdin,
      OutputStream stdout,
      JobListener listener,
      CrashPoints crash) {
    this.spec = spec;
    this.stdin = stdin;
    this.stdout = stdout;
    this.listener = listener;
    this.crash = crash;
  }

  /**
   * Runs the job, or resumes it from its state.
   *
   * @throws BadRecordException for a bad record under {@code fail} (after a checkpoint, with a
   *     state)
   * @throws JobException for a job that cannot run as specified (a message for the user)
   */
  public static CorpusResult run(
      CorpusSpec spec, InputStream stdin, OutputStream stdout, JobListener listener)
      throws IOException {
    return run(spec, stdin, stdout, listener, CrashPoints.configured());
  }

  /** {@link #run}, reaching {@code crash} at each step (test seam, see {@link CrashPoints}). */
  static CorpusResult run(
      CorpusSpec spec,
      InputStream stdin,
      OutputStream stdout,
      JobListener listener,
      CrashPoints crash)
      throws IOException {
    return new CorpusJob(spec, stdin, stdout, listener, crash).run();
  }

  private CorpusResult run() throws IOException {
    long started = System.nanoTime();
    inputs = InputFile.expand(spec.inputs());
    if (spec.inputs().stream().anyMatch(InputPaths::isPattern)) {
      listener.note(
          String.format(
              Locale.ROOT, "%,d input file%s found", inputs.size(), inputs.size() == 1 ? "" : "s"));
    }
    for (Path p : new Path[] {spec.output(), spec.dropped(), spec.annotate()}) {
      if (p != null) {
        OutputFile.requireDirectory(p);
      }
    }
    refuseDestructivePaths();
    if (spec.state() != null) {
      InputFile.requireFiles(inputs, "a job with --state reads its inputs again when it resumes");
    }
    List<InputFile> againstFiles = List.of();
    if (spec.mode() == CorpusSpec.Mode.DECONTAMINATE) {
      againstFiles = InputFile.expand(spec.against());
      if (againstFiles.isEmpty()) {
        throw new JobException("--against " + spec.against() + ": no evaluation set found there");
      }
      InputFile.requireFiles(againstFiles, "the evaluation sets (--against) are read first");
    }
    try (ResumableRun<CorpusState.Progress> run =
        spec.state() == null
            ? null
            : CorpusState.open(
                spec.state(), CorpusState.identity(spec, inputs, againstFiles), crash)) {
      state = run;
      CorpusState.Progress from = run != null && run.resumed() ? run.checkpoint() : null;
      if (from != null && from.complete()) {
        tally.restore(from.counts());
        warn(spec.state() + " holds a finished job: nothing was done; its output is as written");
        return result(started, true);
      }
      InputPosition at = InputPosition.START;
      boolean verifyStart = false;
      if (from != null) {
        InputCheck.Outcome o =
            run.checkInputs(inputs, from.position(), spec.verifyInputs(), kernelListener());
        verifyStart = o.verifyStart();
        at = ResumableRun.vouched(from.position(), o);
        tally.restore(from.counts());
        sequence = from.sequence();
        snapshot = from.snapshot();
      }
      if (spec.mode() == CorpusSpec.Mode.DECONTAMINATE) {
        EvaluationSets.Read read = EvaluationSets.read(spec, againstFiles, sourceSettings(), stdin);
        against = read.set();
        againstGrams = read.grams();
      }
      if (run != null) {
        deleteUnnamed(from);
      }
      try {
        openOutputs(from);
        judge = new UnitJudge(spec, tally, seen);
        return process(at, verifyStart, started);
      } finally {
        closeOutputs();
      }
    }
  }

  // ---- the set ----

  /** The set a new job starts with: exact where it fits, else as the options say. */
  private SeenSet newSeen() throws IOException {
    String keys = keysWord();
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

  private String keysWord() {
    return spec.mode() == CorpusSpec.Mode.PARAGRAPHS ? "paragraphs" : "n-grams";
  }

  // ---- outputs ----

  private void openOutputs(CorpusState.Progress from) throws IOException {
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
    if (spec.mode() != CorpusSpec.Mode.DECONTAMINATE) {
      if (from == null || from.structure() == null) {
        seen = newSeen();
        snapshot = 0;
        if (state != null) {
          seen.journalTo(
              OutputFile.open(CorpusState.journal(state.directory(), 0), OutputFile.Mark.EMPTY),
              false);
        }
      } else {
        Path dir = state.directory();
        OutputFile journal = OutputFile.open(CorpusState.journal(dir, snapshot), from.journal());
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
                  keysWord());
        } catch (IOException | RuntimeException e) {
          journal.close();
          throw e;
        }
        seen.journalTo(journal, true);
      }
    }
  }

  private void closeOutputs() throws IOException {
    try (OutputFile o = out;
        OutputFile d = dropped;
        OutputFile a = annotate;
        OutputFile q = quarantine;
        OutputFile j = seen == null ? null : seen.journal()) {
      // closes all, the first failure thrown
    }
  }

  /** Deletes the snapshots, journals and temporary files the checkpoint does not name. */
  private void deleteUnnamed(CorpusState.Progress from) throws IOException {
    long keep = from == null ? -1 : from.snapshot();
    try (Stream<Path> files = Files.list(state.directory())) {
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

  // ---- the read ----

  private RecordSource.Settings sourceSettings() {
    // the reading thread only cuts lines (and marks blank ones): the parsing threads do the rest
    return new RecordSource.Settings(
        RecordFormat.JSONL,
        false,
        KeyExtractor.of(new KeySpec.WholeLine(), RecordFormat.JSONL),
        Fingerprinter.xxh3(),
        false,
        spec.maxRecordBytes());
  }

  private CorpusResult process(InputPosition at, boolean verifyStart, long started)
      throws IOException {
    RecordSource.Settings settings = sourceSettings();
    long sinceCheckpoint = 0;
    long lastCheckpoint = System.nanoTime();
    try (RecordSource source =
            state != null
                ? RecordSource.tracking(
                    inputs,
                    settings,
                    at.fileIndex(),
                    at.offset(),
                    at.line(),
                    at.current(),
                    verifyStart)
                : new RecordSource(inputs, settings, stdin, 0, 0, 0);
        ParsingPool pool =
            new ParsingPool(spec.threads(), () -> DocumentParser.of(spec, against))) {
      if (state != null) {
        cursor = new InputCursor(source.reads(), at, inputs.size());
      }
      long total = 0;
      for (InputFile f : inputs) {
        total += f.isStream() ? 0 : f.size();
      }
      // input bytes as stored; nothing is drawn for standard input, whose size is not known
      PhaseReporter progress =
          new PhaseReporter(
              listener, PHASE, PhaseProgress.Unit.BYTES, source.rawBytesRead(), total);
      ArrayDeque<ParsingPool.Pending> pending = new ArrayDeque<>();
      boolean ended = false;
      while (true) {
        while (!ended && pending.size() < 2) {
          RecordBatch b = source.next();
          ended = b.endOfInput;
          pending.add(pool.submit(b));
        }
        ParsingPool.Pending p = pending.poll();
        RecordBatch batch = p.batch;
        ParsedDocument[] docs = p.get();
        for (int i = 0; i < batch.count; i++) {
          handle(batch, i, docs[i]);
          if (cursor == null) {
            continue;
          }
          cursor.handled(batch, i);
          sinceCheckpoint++;
          if (sinceCheckpoint >= spec.checkpointDocuments()
              || ((i & 255) == 255
                  && System.nanoTime() - lastCheckpoint > spec.checkpointMillis() * 1_000_000)) {
            checkpoint(false); // after record i: the batch's later records come after it
            sinceCheckpoint = 0;
            lastCheckpoint = System.nanoTime();
          }
        }
        if (batch.endOfInput) {
          finish();
          source.recycle(batch);
          progress.end();
          return result(started, false);
        }
        source.recycle(batch);
        Map<String, Long> counts = new LinkedHashMap<>(); // shown in this order
        counts.put("records", tally.documents);
        counts.put("kept", tally.kept);
        progress.at(source.rawBytesRead(), counts);
      }
    }
  }

  private void handle(RecordBatch batch, int i, ParsedDocument d) throws IOException {
    switch (batch.kind[i]) {
      case RecordBatch.OK -> {
        tally.records++;
        if (!d.ok()) {
          bad(batch, i, d.problem);
          return;
        }
        tally.documents++;
        document(batch, i, d);
        if (state != null) {
          state.reached(CorpusState.Step.DOCUMENT_HANDLED);
        }
      }
      case RecordBatch.BLANK -> tally.blankLines++;
      case RecordBatch.HEADER -> {}
      default -> {
        tally.records++;
        bad(batch, i, batch.problem[i]);
      }
    }
  }

  private void bad(RecordBatch batch, int i, String problem) throws IOException {
    String name = inputs.get(batch.fileIndex[i]).path();
    if (spec.onBadRecord() instanceof BadRecordPolicy.Fail) {
      tally.records--;
      if (state != null) {
        checkpoint(false); // just before this record: a rerun with skip goes on from it
      }
      throw new BadRecordException(name, batch.line[i], problem, state != null);
    }
    tally.badRecords++;
    if (quarantine != null) {
      String w = quarantine.quarantine(batch, i, name);
      if (w != null) {
        warn(w);
      }
    }
  }

  // ---- judging one document ----

  private void document(RecordBatch batch, int i, ParsedDocument d) throws IOException {
    judge.judge(d);
    int n = d.paragraphs;
    boolean[] removed = judge.removed;
    double[] score = judge.score;
    boolean any = judge.any;
    double wholeScore = judge.wholeScore;
    String name = inputs.get(batch.fileIndex[i]).path();
    long lineNo = batch.line[i];
    RemovalWriter.CodePoints cp = new RemovalWriter.CodePoints(d.text);
    if (wholeScore >= 0) {
      tally.removedDocuments++;
      tally.removedChars += d.text.length();
      if (dropped != null) {
        if (spec.mode() == CorpusSpec.Mode.DECONTAMINATE) {
          removals.dropped(
              name,
              lineNo,
              "document",
              cp,
              d.matchStart[0],
              d.matchEnd[0],
              wholeScore,
              d.text,
              d.matchStart[0],
              d.matchEnd[0]);
        } else {
          removals.dropped(
              name,
              lineNo,
              "document",
              cp,
              0,
              d.text.length(),
              wholeScore,
              d.text,
              0,
              d.text.length());
        }
      }
      removals.annotate(d, cp, true, wholeScore, removed, score);
      return;
    }
    if (!any) {
      tally.kept++;
      if (out != null) {
        out.writeRecord(batch, i);
      }
      removals.annotate(d, cp, false, 0, removed, score);
      return;
    }
    // the text without the spans of the removed paragraphs
    left.setLength(0);
    left.append(d.text, 0, n == 0 ? d.text.length() : d.start[0]);
    for (int k = 0; k < n; k++) {
      if (removed[k]) {
        tally.removedParagraphs++;
        if (dropped != null) {
          boolean decon = spec.mode() == CorpusSpec.Mode.DECONTAMINATE;
          int s = decon ? d.matchStart[k] : d.start[k];
          int e = decon ? d.matchEnd[k] : d.spanEnd[k];
          removals.dropped(
              name, lineNo, "paragraph", cp, s, e, score[k], d.text, s, decon ? e : d.end[k]);
        }
      } else {
        left.append(d.text, d.start[k], d.spanEnd[k]);
      }
    }
    String rest = left.toString();
    tally.removedChars += d.text.length() - rest.length();
    String stripped = rest.strip();
    if (stripped.length() < spec.minDocChars()
        || stripped.codePointCount(0, stripped.length()) < spec.minDocChars()) {
      tally.shortDocuments++;
      tally.removedChars += rest.length();
      if (dropped != null) {
        removals.dropped(
            name, lineNo, "document", cp, 0, d.text.length(), 1, rest, 0, rest.length());
      }
      removals.annotate(d, cp, true, 1, removed, score);
      return;
    }
    tally.kept++;
    tally.changed++;
    if (out != null) {
      int start = batch.start[i];
      byte[] a = batch.arena;
      out.write(a, start, d.valueStart);
      int len = JsonStrings.write(rest, 0, rest.length(), line, 0);
      out.write(line.bytes, 0, len);
      int after = start + d.valueEnd;
      int terminator = batch.terminatorLength[i];
      out.write(a, after, start + batch.contentLength[i] + terminator - after);
      if (terminator == 0) {
        out.write((byte) '\n');
      }
    }
    removals.annotate(d, cp, false, 0, removed, score);
  }

  // ---- checkpoints ----

  private void checkpoint(boolean complete) throws IOException {
    if (seen != null) {
      seen.flushJournal();
      seen.checkRate(true);
    }
    OutputFile.Mark outMark = out == null ? OutputFile.Mark.EMPTY : out.mark();
    OutputFile.Mark droppedMark = dropped == null ? OutputFile.Mark.EMPTY : dropped.mark();
    OutputFile.Mark annotateMark = annotate == null ? OutputFile.Mark.EMPTY : annotate.mark();
    OutputFile.Mark quarantineMark = quarantine == null ? OutputFile.Mark.EMPTY : quarantine.mark();
    OutputFile.Mark journalMark = seen == null ? OutputFile.Mark.EMPTY : seen.journal().mark();
    long journalCrc = seen == null ? 0 : seen.journalCrc();
    state.reached(CorpusState.Step.OUTPUTS_SYNCED);
    long next = sequence + 1;
    long snap = snapshot;
    OutputFile oldJournal = null;
    if (seen != null && !complete && seen.snapshotDue()) {
      seen.writeSnapshot(CorpusState.snapshot(state.directory(), next));
      state.reached(CorpusState.Step.SNAPSHOT_WRITTEN);
      oldJournal = seen.journal();
      OutputFile fresh = OutputFile.open(CorpusState.journal(state.directory(), next));
      seen.journalTo(fresh, false);
      snap = next;
      journalMark = OutputFile.Mark.EMPTY;
      journalCrc = 0;
    }
    state.commit(
        new CorpusState.Progress(
            next,
            complete ? cursor.finalPosition() : cursor.position(),
            tally.counts(),
            outMark,
            droppedMark,
            annotateMark,
            quarantineMark,
            seen == null ? null : seen.structure().word(),
            seen == null ? 0 : seen.expected(),
            snap,
            journalMark,
            journalCrc,
            complete));
    sequence = next;
    if (snap != snapshot) {
      long old = snapshot;
      snapshot = snap;
      oldJournal.close();
      Files.deleteIfExists(CorpusState.journal(state.directory(), old));
      Files.deleteIfExists(CorpusState.snapshot(state.directory(), old));
    }
  }

  private void finish() throws IOException {
    if (state != null) {
      checkpoint(true);
      return;
    }
    if (seen != null) {
      seen.checkRate(true);
    }
    for (OutputFile f : new OutputFile[] {out, dropped, annotate, quarantine}) {
      if (f != null) {
        f.flush();
      }
    }
  }

  private CorpusResult result(long started, boolean alreadyDone) {
    double rate;
    long setKeys;
    long setBytes;
    double fill;
    String set;
    if (seen != null) {
      rate = seen.expectedRate();
      setKeys = seen.size();
      setBytes = seen.bytes();
      fill = seen.fill();
      set = seen.describe();
    } else if (against != null) {
      rate = against instanceof StripedFingerprintSet ? 0 : against.expectedFpp();
      setKeys = against.approximateCount();
      setBytes = against.bitSize() / 8;
      fill = 0;
      set =
          String.format(
              Locale.ROOT,
              "%s of the evaluation sets' %,d distinct n-grams (%,d with repeats), %s",
              rate == 0 ? "exact set" : "Bloom filter",
              setKeys,
              againstGrams,
              ByteSize.format(setBytes));
    } else {
      rate = 0;
      setKeys = 0;
      setBytes = 0;
      fill = 0;
      set = "(restored counts only)";
    }
    return new CorpusResult(
        tally.records,
        tally.documents,
        tally.blankLines,
        tally.badRecords,
        tally.kept,
        tally.changed,
        tally.removedDocuments,
        tally.shortDocuments,
        tally.paragraphs,
        tally.judgedParagraphs,
        tally.removedParagraphs,
        tally.grams,
        tally.seenGrams,
        tally.contentChars,
        tally.removedChars,
        set,
        setKeys,
        setBytes,
        fill,
        rate,
        rate == 0 ? 0 : FalseRemovals.shareBound(tally.unitSizes, rate, threshold()),
        againstGrams,
        alreadyDone,
        (System.nanoTime() - started) / 1_000_000,
        List.copyOf(warnings));
  }

  /** The share of a unit's keys that removes it, for the bound: paragraphs 1 (one key). */
  private double threshold() {
    return spec.mode() == CorpusSpec.Mode.PARAGRAPHS ? 1 : spec.threshold();
  }

  private void warn(String message) {
    warnings.add(message);
    listener.warning(message);
  }

  private JobListener kernelListener() {
    return new JobListener() {
      @Override
      public void warning(String message) {
        warn(message);
      }

      @Override
      public void note(String message) {
        listener.note(message);
      }
    };
  }

  /**
   * Refuses outputs that are inputs, lie in the state directory or are each other, before anything
   * is opened for writing: the same guard the command runs, for the library's callers.
   */
  private void refuseDestructivePaths() throws IOException {
    OutputGuard guard =
        new OutputGuard()
            .resumable(spec.state() != null)
            .inputs(spec.inputs())
            .inputs(spec.against())
            .stateDirectory("the state directory " + spec.state(), spec.state())
            .output("the output " + spec.output(), spec.output())
            .output("the dropped file " + spec.dropped(), spec.dropped())
            .output("the annotation file " + spec.annotate(), spec.annotate());
    if (spec.onBadRecord() instanceof BadRecordPolicy.Quarantine q) {
      guard.output("the quarantine file " + q.file(), q.file());
    }
    guard.check();
  }
}
