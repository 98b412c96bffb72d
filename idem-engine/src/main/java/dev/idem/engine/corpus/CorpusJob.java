package dev.idem.engine.corpus;

import dev.idem.core.ByteSize;
import dev.idem.core.Fingerprinter;
import dev.idem.core.filter.BlockedBloomFilter;
import dev.idem.core.filter.MembershipFilter;
import dev.idem.core.filter.ScalableBloomFilter;
import dev.idem.core.filter.StripedFingerprintSet;
import dev.idem.engine.JobException;
import dev.idem.engine.records.BadRecordException;
import dev.idem.engine.records.BadRecordPolicy;
import dev.idem.engine.records.InputCheck;
import dev.idem.engine.records.InputFile;
import dev.idem.engine.records.InputPaths;
import dev.idem.engine.records.KeyExtractor;
import dev.idem.engine.records.KeySpec;
import dev.idem.engine.records.OutputFile;
import dev.idem.engine.records.OutputGuard;
import dev.idem.engine.records.RecordBatch;
import dev.idem.engine.records.RecordFormat;
import dev.idem.engine.records.RecordSource;
import dev.idem.engine.run.CrashPoints;
import dev.idem.engine.run.InputCursor;
import dev.idem.engine.run.InputPosition;
import dev.idem.engine.run.JobListener;
import dev.idem.engine.run.ResumableRun;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
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

  /** The attribute each mode writes to {@code --annotate}. */
  static String attributeName(CorpusSpec.Mode mode) {
    return switch (mode) {
      case PARAGRAPHS -> "idem_duplicate_paragraph_spans";
      case NGRAMS -> "idem_ngram_overlap_spans";
      case DECONTAMINATE -> "idem_contamination_spans";
    };
  }

  private final CorpusSpec spec;
  private final InputStream stdin;
  private final OutputStream stdout;
  private final JobListener listener;
  private final CrashPoints crash;
  private final List<String> warnings = new ArrayList<>();

  // what the job counted
  private long records;
  private long documents;
  private long blankLines;
  private long badRecords;
  private long kept;
  private long changed;
  private long removedDocuments;
  private long shortDocuments;
  private long paragraphs;
  private long judgedParagraphs;
  private long removedParagraphs;
  private long grams;
  private long seenGrams;
  private long contentChars;
  private long removedChars;

  /** Units judged, by their n-grams: for the bound on removals by false positives. */
  private final Map<Integer, Long> unitSizes = new HashMap<>();

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
        restoreCounts(from.counts());
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
        restoreCounts(from.counts());
        sequence = from.sequence();
        snapshot = from.snapshot();
      }
      if (spec.mode() == CorpusSpec.Mode.DECONTAMINATE) {
        against = buildAgainst(againstFiles);
      }
      if (run != null) {
        deleteUnnamed(from);
      }
      try {
        openOutputs(from);
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

  /** The evaluation sets' n-grams, a set read only from then on. */
  private MembershipFilter buildAgainst(List<InputFile> files) throws IOException {
    MembershipFilter set;
    if (spec.fpp() == 0) {
      set = StripedFingerprintSet.forRecords(1 << 20);
    } else if (spec.expected() > 0) {
      set = BlockedBloomFilter.create(spec.expected(), spec.fpp());
    } else {
      set =
          ScalableBloomFilter.builder()
              .initialCapacity(1 << 20)
              .falsePositiveRate(spec.fpp())
              .build();
    }
    DocumentParser parser = new DocumentParser(spec, spec.againstContent().path(), null, null);
    ParsedDocument d = new ParsedDocument();
    RecordSource.Settings settings = sourceSettings();
    try (RecordSource source = new RecordSource(files, settings, stdin, 0, 0, 0)) {
      while (true) {
        RecordBatch batch = source.next();
        for (int i = 0; i < batch.count; i++) {
          if (batch.kind[i] == RecordBatch.BLANK) {
            continue;
          }
          String problem =
              batch.kind[i] == RecordBatch.OK
                  ? parser.text(batch.arena, batch.start[i], batch.contentLength[i], d)
                  : batch.problem[i];
          if (problem != null) {
            throw new JobException(
                "evaluation set "
                    + files.get(batch.fileIndex[i]).path()
                    + ":"
                    + batch.line[i]
                    + ": "
                    + problem);
          }
          againstGrams += parser.addGrams(d.text, true, set);
        }
        boolean end = batch.endOfInput;
        source.recycle(batch);
        if (end) {
          break;
        }
      }
    }
    if (set instanceof BlockedBloomFilter b && b.expectedFpp() > spec.fpp()) {
      throw new JobException(
          String.format(
              Locale.ROOT,
              "the evaluation sets hold %,d n-grams, more than the %,d --expected sizes the filter"
                  + " for: its false-positive rate would be %.3g, above --fpp %s. Give --expected of"
                  + " at least %,d, or leave it out (a filter that grows)",
              b.approximateCount(),
              b.capacity(),
              b.expectedFpp(),
              spec.fpp(),
              2 * b.approximateCount()));
    }
    return set;
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
          return result(started, false);
        }
        source.recycle(batch);
      }
    }
  }

  private void handle(RecordBatch batch, int i, ParsedDocument d) throws IOException {
    switch (batch.kind[i]) {
      case RecordBatch.OK -> {
        records++;
        if (!d.ok()) {
          bad(batch, i, d.problem);
          return;
        }
        documents++;
        document(batch, i, d);
        if (state != null) {
          state.reached(CorpusState.Step.DOCUMENT_HANDLED);
        }
      }
      case RecordBatch.BLANK -> blankLines++;
      case RecordBatch.HEADER -> {}
      default -> {
        records++;
        bad(batch, i, batch.problem[i]);
      }
    }
  }

  private void bad(RecordBatch batch, int i, String problem) throws IOException {
    String name = inputs.get(batch.fileIndex[i]).path();
    if (spec.onBadRecord() instanceof BadRecordPolicy.Fail) {
      records--;
      if (state != null) {
        checkpoint(false); // just before this record: a rerun with skip goes on from it
      }
      throw new BadRecordException(name, batch.line[i], problem, state != null);
    }
    badRecords++;
    if (quarantine != null) {
      if (batch.tooLongToKeep(i)) {
        warn(
            name
                + ":"
                + batch.line[i]
                + ": "
                + problem
                + "; too long to quarantine, counted as bad");
      } else {
        quarantine.writeRecord(batch, i);
      }
    }
  }

  // ---- judging one document ----

  /** Paragraphs removed from the document being judged, and each one's score. */
  private boolean[] removed = new boolean[64];

  private double[] score = new double[64];

  private void document(RecordBatch batch, int i, ParsedDocument d) throws IOException {
    int n = d.paragraphs;
    if (removed.length < n) {
      removed = new boolean[Math.max(n, 2 * removed.length)];
      score = new double[removed.length];
    }
    java.util.Arrays.fill(removed, 0, n, false);
    paragraphs += n;
    contentChars += d.text.length();
    boolean any = false;
    double wholeScore = -1; // the document removed whole, with this score
    switch (spec.mode()) {
      case PARAGRAPHS -> {
        for (int k = 0; k < n; k++) {
          if (d.judged[k]) {
            judgedParagraphs++;
            if (!seen.add(d.fingerprints[2 * k], d.fingerprints[2 * k + 1])) {
              removed[k] = true;
              score[k] = 1;
              any = true;
            }
          }
        }
        count(1, countJudged(d));
      }
      case NGRAMS -> {
        long docSeen = 0;
        long docGrams = 0;
        for (int k = 0; k < n; k++) {
          if (!d.judged[k]) {
            continue;
          }
          judgedParagraphs++;
          int from = d.gramFrom[k];
          int to = d.gramFrom[k + 1];
          if (to == from) {
            continue; // no token: never removed
          }
          long[] g = d.grams;
          int contained = 0;
          for (int j = from; j < to; j++) {
            if (seen.contains(g[2 * j], g[2 * j + 1])) {
              contained++;
            }
          }
          for (int j = from; j < to; j++) {
            seen.add(g[2 * j], g[2 * j + 1]);
          }
          int total = to - from;
          count(total, 1);
          grams += total;
          seenGrams += contained;
          docSeen += contained;
          docGrams += total;
          double share = (double) contained / total;
          if (share >= spec.threshold()) {
            removed[k] = true;
            score[k] = share;
            any = true;
          }
        }
        if (spec.documentThreshold() > 0 && docGrams > 0) {
          double share = (double) docSeen / docGrams;
          if (share >= spec.documentThreshold()) {
            wholeScore = share;
          }
        }
      }
      case DECONTAMINATE -> {
        boolean whole = spec.unit() == CorpusSpec.Unit.DOCUMENT;
        for (int u = 0; u < d.unitGrams.length; u++) {
          int g = d.unitGrams[u];
          if (g == 0) {
            continue;
          }
          if (!whole) {
            judgedParagraphs++;
          }
          count(g, 1);
          grams += g;
          seenGrams += d.unitMatched[u];
          double share = (double) d.unitMatched[u] / g;
          if (d.unitMatched[u] > 0 && share >= spec.threshold()) {
            if (whole) {
              wholeScore = share;
            } else {
              removed[u] = true;
              score[u] = share;
              any = true;
            }
          }
        }
        if (!whole) {
          for (int k = 0; k < n; k++) {
            if (d.judged[k] && d.unitGrams[k] == 0) {
              judgedParagraphs++;
            }
          }
        }
      }
    }
    String name = inputs.get(batch.fileIndex[i]).path();
    long lineNo = batch.line[i];
    CodePoints cp = new CodePoints(d.text);
    if (wholeScore >= 0) {
      removedDocuments++;
      removedChars += d.text.length();
      if (dropped != null) {
        if (spec.mode() == CorpusSpec.Mode.DECONTAMINATE) {
          droppedLine(
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
          droppedLine(
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
      annotate(d, cp, true, wholeScore);
      return;
    }
    if (!any) {
      kept++;
      if (out != null) {
        out.writeRecord(batch, i);
      }
      annotate(d, cp, false, 0);
      return;
    }
    // the text without the spans of the removed paragraphs
    left.setLength(0);
    left.append(d.text, 0, n == 0 ? d.text.length() : d.start[0]);
    for (int k = 0; k < n; k++) {
      if (removed[k]) {
        removedParagraphs++;
        if (dropped != null) {
          boolean decon = spec.mode() == CorpusSpec.Mode.DECONTAMINATE;
          int s = decon ? d.matchStart[k] : d.start[k];
          int e = decon ? d.matchEnd[k] : d.spanEnd[k];
          droppedLine(
              name, lineNo, "paragraph", cp, s, e, score[k], d.text, s, decon ? e : d.end[k]);
        }
      } else {
        left.append(d.text, d.start[k], d.spanEnd[k]);
      }
    }
    String rest = left.toString();
    removedChars += d.text.length() - rest.length();
    String stripped = rest.strip();
    if (stripped.length() < spec.minDocChars()
        || stripped.codePointCount(0, stripped.length()) < spec.minDocChars()) {
      shortDocuments++;
      removedChars += rest.length();
      if (dropped != null) {
        droppedLine(name, lineNo, "document", cp, 0, d.text.length(), 1, rest, 0, rest.length());
      }
      annotate(d, cp, true, 1);
      return;
    }
    kept++;
    changed++;
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
    annotate(d, cp, false, 0);
  }

  private static int countJudged(ParsedDocument d) {
    int c = 0;
    for (int k = 0; k < d.paragraphs; k++) {
      if (d.judged[k]) {
        c++;
      }
    }
    return c;
  }

  /** {@code units} more units of {@code grams} n-grams each were judged. */
  private void count(int grams, int units) {
    if (units > 0) {
      unitSizes.merge(grams, (long) units, Long::sum);
    }
  }

  /** Code-point offsets of a text's char offsets, for ascending offsets mostly. */
  private static final class CodePoints {
    private final String text;
    private int at;
    private int points;

    CodePoints(String text) {
      this.text = text;
    }

    int of(int index) {
      if (index < at) {
        at = 0;
        points = 0;
      }
      points += text.codePointCount(at, index);
      at = index;
      return points;
    }
  }

  /**
   * {@code FILE<TAB>LINE<TAB>UNIT<TAB>START<TAB>END<TAB>SCORE<TAB>TEXT}: the span in code points of
   * the content as read, and {@code text[from, to)} as a JSON string.
   */
  private void droppedLine(
      String name,
      long lineNo,
      String unit,
      CodePoints cp,
      int start,
      int end,
      double score,
      String text,
      int from,
      int to)
      throws IOException {
    byte[] file = name.getBytes(StandardCharsets.UTF_8); // a path's bytes, not its chars
    dropped.write(file, 0, file.length);
    String head =
        "\t"
            + lineNo
            + "\t"
            + unit
            + "\t"
            + cp.of(start)
            + "\t"
            + cp.of(end)
            + "\t"
            + score(score)
            + "\t";
    byte[] h = head.getBytes(StandardCharsets.US_ASCII);
    dropped.write(h, 0, h.length);
    int len = JsonStrings.write(text, from, to, line, 0);
    dropped.write(line.bytes, 0, len);
    dropped.write((byte) '\n');
  }

  /**
   * The document's line of {@code --annotate}: {@code {"id":…,"attributes":{"NAME":[[start, end,
   * score],…]}}}, spans in code points; the whole text when {@code whole}.
   */
  private void annotate(ParsedDocument d, CodePoints cp, boolean whole, double wholeScore)
      throws IOException {
    if (annotate == null) {
      return;
    }
    StringBuilder b = new StringBuilder(64);
    if (whole) {
      b.append('[')
          .append(0)
          .append(',')
          .append(cp.of(d.text.length()))
          .append(',')
          .append(score(wholeScore))
          .append(']');
    } else {
      for (int k = 0; k < d.paragraphs; k++) {
        if (removed[k]) {
          if (b.length() > 0) {
            b.append(',');
          }
          b.append('[')
              .append(cp.of(d.start[k]))
              .append(',')
              .append(cp.of(d.spanEnd[k]))
              .append(',')
              .append(score(score[k]))
              .append(']');
        }
      }
    }
    String lineText =
        "{\"id\":"
            + d.idJson
            + ",\"attributes\":{\""
            + attributeName(spec.mode())
            + "\":["
            + b
            + "]}}\n";
    byte[] bytes = lineText.getBytes(StandardCharsets.UTF_8);
    annotate.write(bytes, 0, bytes.length);
  }

  /** A score as written: 1.0, or four decimals. */
  static String score(double s) {
    return s == 1 ? "1.0" : String.format(Locale.ROOT, "%.4f", s);
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
            counts(),
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

  private CorpusState.Counts counts() {
    return new CorpusState.Counts(
        records,
        documents,
        blankLines,
        badRecords,
        kept,
        changed,
        removedDocuments,
        shortDocuments,
        paragraphs,
        judgedParagraphs,
        removedParagraphs,
        grams,
        seenGrams,
        contentChars,
        removedChars);
  }

  private void restoreCounts(CorpusState.Counts c) {
    records = c.records();
    documents = c.documents();
    blankLines = c.blankLines();
    badRecords = c.badRecords();
    kept = c.kept();
    changed = c.changed();
    removedDocuments = c.removedDocuments();
    shortDocuments = c.shortDocuments();
    paragraphs = c.paragraphs();
    judgedParagraphs = c.judgedParagraphs();
    removedParagraphs = c.removedParagraphs();
    grams = c.grams();
    seenGrams = c.seenGrams();
    contentChars = c.contentChars();
    removedChars = c.removedChars();
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
        records,
        documents,
        blankLines,
        badRecords,
        kept,
        changed,
        removedDocuments,
        shortDocuments,
        paragraphs,
        judgedParagraphs,
        removedParagraphs,
        grams,
        seenGrams,
        contentChars,
        removedChars,
        set,
        setKeys,
        setBytes,
        fill,
        rate,
        rate == 0 ? 0 : FalseRemovals.shareBound(unitSizes, rate, threshold()),
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
