package dev.idem.engine.neardup;

import dev.idem.core.Fingerprinter;
import dev.idem.engine.JobException;
import dev.idem.engine.input.InputFile;
import dev.idem.engine.output.OutputFile;
import dev.idem.engine.output.OutputGuard;
import dev.idem.engine.records.BadRecordException;
import dev.idem.engine.records.BadRecordPolicy;
import dev.idem.engine.records.InputRead;
import dev.idem.engine.records.KeyExtractor;
import dev.idem.engine.records.RecordBatch;
import dev.idem.engine.records.RecordSource;
import dev.idem.engine.run.CrashPoints;
import dev.idem.engine.run.InputCursor;
import dev.idem.engine.run.InputPosition;
import dev.idem.engine.run.JobListener;
import dev.idem.engine.run.JobWarnings;
import dev.idem.engine.run.ResumableRun;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.BitSet;
import java.util.List;
import java.util.function.Supplier;

/**
 * {@code idem near-dup}: removes documents that are near-duplicates of an earlier one, in two reads
 * of the inputs.
 *
 * <p>The first read judges. A document whose content has the fingerprint of an earlier document's
 * (the same bytes, as {@code dedup --content} compares them) is an exact duplicate and joins that
 * document's cluster before any shingling. Every other document is shingled, signed and added to
 * the {@code Clustering}, which compares it with every earlier document it shares an LSH bucket
 * with. What it decided is a {@code Judgement}: each document's survivor. The second read ({@code
 * SurvivorWriter}) writes each document whose survivor is itself to the output, the others to
 * {@code --dropped}, in input order, byte for byte as read. Standard input is kept in a temporary
 * file for the second read.
 *
 * <p>With a state directory ({@code NearDupState}) the judgement is saved once made and the second
 * read checkpoints, so a killed job resumes with the outputs of an uninterrupted run.
 *
 * <p>The streaming plan ({@code --streaming}) reads once: each document is written as soon as it is
 * judged, removed when it has an accepted pair with an earlier document. Its survivors are a
 * superset of the batch plan's (a document that joins two earlier groups cannot remove the second
 * group's first, already written).
 *
 * <p>Bad records are failed on (before anything is written), skipped or quarantined during the
 * first read; the second read passes over them.
 *
 * <p>Why it is long: the two-read plan and the streaming plan share the job's start, resume,
 * outputs and state; the math (shingles, MinHash, bands, clustering) and the job's parts (signing,
 * judgement, the second read, the state) are already classes of their own in this package.
 */
public final class NearDupJob {

  private final NearDupSpec spec;
  private final InputStream stdin;
  private final OutputStream stdout;
  private final JobListener listener;
  private final JobWarnings warnings;

  private long records;
  private long documents;
  private long exactDuplicates;
  private long badRecords;
  private long blankLines;
  private long quarantineBytes;
  private Path spool;

  private final CrashPoints crash;

  /** With a state: the position of the one read that judges, with what it read. */
  private InputCursor cursor;

  private NearDupJob(
      NearDupSpec spec,
      InputStream stdin,
      OutputStream stdout,
      JobListener listener,
      CrashPoints crash) {
    this.spec = spec;
    this.stdin = stdin;
    this.stdout = stdout;
    this.listener = listener;
    this.warnings = new JobWarnings(listener);
    this.crash = crash;
  }

  /**
   * Runs the job, or resumes it from its state.
   *
   * @param listener told of each warning (also in the result) and note as it happens
   * @throws BadRecordException for a bad record under {@code fail}, before any output is written
   * @throws JobException for a job that cannot run as specified (a message for the user)
   */
  public static NearDupResult run(
      NearDupSpec spec, InputStream stdin, OutputStream stdout, JobListener listener)
      throws IOException {
    return run(spec, stdin, stdout, listener, CrashPoints.configured());
  }

  /** {@link #run}, reaching {@code crash} at each step (test seam, see {@link CrashPoints}). */
  static NearDupResult run(
      NearDupSpec spec,
      InputStream stdin,
      OutputStream stdout,
      JobListener listener,
      CrashPoints crash)
      throws IOException {
    return new NearDupJob(spec, stdin, stdout, listener, crash).run();
  }

  private NearDupResult run() throws IOException {
    long started = System.nanoTime();
    List<InputFile> inputs = InputFile.expand(spec.inputs());
    KeyExtractor extractor;
    try {
      extractor = KeyExtractor.of(spec.content(), spec.format());
    } catch (IllegalArgumentException e) {
      throw new JobException(e.getMessage());
    }
    for (Path p : new Path[] {spec.output(), spec.dropped(), spec.clusters()}) {
      if (p != null) {
        OutputFile.requireDirectory(p); // before the work, not after it
      }
    }
    refuseDestructivePaths();
    if (spec.state() != null) {
      InputFile.requireFiles(inputs, "a job with --state reads its inputs again when it resumes");
    }
    if (!spec.streaming()) {
      InputFile.requireFiles(
          inputs.stream().filter(f -> !f.isStdin()).toList(), // standard input is kept in --tmp
          "near-dup reads its inputs twice (--streaming reads them once)");
    }
    try (ResumableRun<NearDupState.Progress> state =
        spec.state() == null
            ? null
            : NearDupState.open(spec.state(), NearDupState.identity(spec, inputs), crash)) {
      NearDupState.Progress from = state == null || !state.resumed() ? null : state.checkpoint();
      if (from != null && from.phase() == NearDupState.Phase.DONE) {
        warnings.add(
            spec.state() + " holds a finished job: nothing was done; its output is as written");
        long clusters =
            spec.streaming() ? from.counts().clusters() : Judgement.load(spec.state()).clusters();
        return result(from, from.kept(), clusters, started);
      }
      if (from != null && !spec.streaming()) {
        // the judgement stands for what the first read read of every input: all of it
        List<InputRead> judged = from.judged() == null ? List.of() : from.judged();
        state.checkInputs(
            inputs, InputPosition.allRead(judged), spec.verifyInputs(), warnings.listener());
      }
      if (spec.streaming()) {
        return streaming(inputs, extractor, state, from, started);
      }
      if (inputs.stream().anyMatch(InputFile::isStdin)) {
        Path dir = spec.tmp() != null ? spec.tmp() : Path.of(System.getProperty("java.io.tmpdir"));
        spool = Files.createTempFile(dir, "idem-near-dup-", ".stdin");
        Files.copy(stdin, spool, StandardCopyOption.REPLACE_EXISTING);
      }
      Judgement judgement;
      Clustering clustering = null;
      if (from == null) {
        clustering = newClustering();
        try (Clustering c = clustering) {
          judge(inputs, extractor, state != null, null, c);
          judgement = Judgement.of(c);
        }
        if (state != null) {
          judgement.save(state.directory());
          state.reached(NearDupState.Step.JUDGEMENT_SAVED);
          from =
              NearDupState.Progress.judged(
                  cursor.finalPosition().ended(), counts(clustering, null));
          state.commit(from);
        }
      } else {
        judgement = Judgement.load(spec.state());
      }
      NearDupState.Counts counts = from == null ? null : from.counts();
      long kept;
      try (InputStream in = standardInput();
          SurvivorWriter writer =
              new SurvivorWriter(
                  spec,
                  inputs,
                  state,
                  from,
                  from == null ? null : from.judged(),
                  () -> counts,
                  stdout)) {
        kept = writer.write(judgement, in, extractor);
      }
      return clustering != null
          ? result(
              clustering, kept, documents - judgement.survivors(), judgement.clusters(), started)
          : result(from, kept, judgement.clusters(), started);
    } finally {
      if (spool != null) {
        Files.deleteIfExists(spool);
      }
    }
  }

  /**
   * The streaming plan: one read, each document written as soon as it is judged. With a state, a
   * resume judges the documents before its checkpoint's position again without writing them.
   */
  private NearDupResult streaming(
      List<InputFile> inputs,
      KeyExtractor extractor,
      ResumableRun<NearDupState.Progress> state,
      NearDupState.Progress from,
      long started)
      throws IOException {
    BitSet survivorsWithMembers = new BitSet();
    Clustering clustering = newClustering();
    Supplier<NearDupState.Counts> counts =
        () -> counts(clustering, (long) survivorsWithMembers.cardinality());
    try (clustering;
        SurvivorWriter writer =
            new SurvivorWriter(spec, inputs, state, from, null, counts, stdout)) {
      DocumentSink sink =
          new DocumentSink() {
            @Override
            public void judged(RecordBatch batch, int i, Clustering c, int doc) throws IOException {
              int survivor = c.survivor(doc); // now: a later document may join it to another
              if (survivor != doc) {
                survivorsWithMembers.set(survivor);
              }
              if (written(from, batch, i)) {
                return;
              }
              if (writer.documents() != doc) {
                throw SurvivorWriter.changed(inputs.get(batch.fileIndex[i]).path());
              }
              boolean removed = survivor != doc;
              writer.document(
                  batch, i, survivor, removed ? c.similarityToSurvivor(doc) : 1, removed);
            }

            @Override
            public void passed(RecordBatch batch, int i) throws IOException {
              if (!written(from, batch, i)) {
                writer.passed(batch, i);
              }
            }

            @Override
            public void batchDone() throws IOException {
              writer.flush();
            }
          };
      judge(inputs, extractor, state != null, sink, clustering, writer, from);
      if (from != null && writer.documents() < from.doc()) {
        throw SurvivorWriter.changed(inputs.get(inputs.size() - 1).path());
      }
      writer.finish();
      return result(
          clustering,
          writer.kept(),
          documents - writer.kept(),
          survivorsWithMembers.cardinality(),
          started);
    }
  }

  /** Whether record {@code i} of {@code batch} is at or before the checkpoint {@code from}. */
  private static boolean written(NearDupState.Progress from, RecordBatch batch, int i) {
    if (from == null) {
      return false;
    }
    InputPosition at = from.position();
    return batch.fileIndex[i] < at.fileIndex()
        || (batch.fileIndex[i] == at.fileIndex() && batch.endOffset[i] <= at.offset());
  }

  /**
   * What the job does with each record as the first read judges it: the streaming plan's writing.
   */
  private interface DocumentSink {
    /** Document {@code doc}, record {@code i} of {@code batch}, was just added to {@code c}. */
    void judged(RecordBatch batch, int i, Clustering c, int doc) throws IOException;

    /** After any record, a document or not. */
    void passed(RecordBatch batch, int i) throws IOException;

    /** After each batch. */
    void batchDone() throws IOException;
  }

  /** The first read's counts so far, for the checkpoints. */
  private NearDupState.Counts counts(Clustering c, Long clusters) {
    return new NearDupState.Counts(
        records,
        documents,
        exactDuplicates,
        badRecords,
        blankLines,
        c.candidatePairs(),
        c.comparedPairs(),
        c.acceptedPairs(),
        quarantineBytes,
        clusters);
  }

  /** The result of a job that judged in this run; {@code removed} counts exact copies too. */
  private NearDupResult result(Clustering c, long kept, long removed, long clusters, long started) {
    return new NearDupResult(
        records,
        documents,
        kept,
        exactDuplicates,
        removed - exactDuplicates,
        clusters,
        badRecords,
        blankLines,
        c.candidatePairs(),
        c.comparedPairs(),
        c.acceptedPairs(),
        c.spilledDocuments(),
        spec.bands(),
        spec.numPerm(),
        spec.threshold(),
        spec.verify(),
        (System.nanoTime() - started) / 1_000_000,
        warnings.list());
  }

  /** The result of a job whose judging an earlier run did: its counts come from the state. */
  private NearDupResult result(NearDupState.Progress from, long kept, long clusters, long started) {
    NearDupState.Counts p = from.counts();
    return new NearDupResult(
        p.records(),
        p.documents(),
        kept,
        p.exactDuplicates(),
        p.documents() - kept - p.exactDuplicates(),
        clusters,
        p.badRecords(),
        p.blankLines(),
        p.candidatePairs(),
        p.comparedPairs(),
        p.acceptedPairs(),
        0,
        spec.bands(),
        spec.numPerm(),
        spec.threshold(),
        spec.verify(),
        (System.nanoTime() - started) / 1_000_000,
        warnings.list());
  }

  /** A warning: told to the listener, and kept for the result. */

  /**
   * Refuses outputs that are inputs, lie in the state directory or are each other, before anything
   * is opened for writing: the same guard the command runs, for the library's callers.
   */
  private void refuseDestructivePaths() throws IOException {
    OutputGuard guard =
        new OutputGuard()
            .resumable(spec.state() != null)
            .inputs(spec.inputs())
            .stateDirectory("the state directory " + spec.state(), spec.state())
            .output("the output " + spec.output(), spec.output())
            .output("the dropped file " + spec.dropped(), spec.dropped())
            .output("the clusters file " + spec.clusters(), spec.clusters());
    if (spec.onBadRecord() instanceof BadRecordPolicy.Quarantine q) {
      guard.output("the quarantine file " + q.file(), q.file());
    }
    guard.check();
  }

  /** A clustering that holds up to {@code --memory} and keeps the rest in {@code --tmp}. */
  private Clustering newClustering() {
    Path tmp = spec.tmp() != null ? spec.tmp() : Path.of(System.getProperty("java.io.tmpdir"));
    return new Clustering(
        new MinHasher(spec.numPerm(), spec.seed()),
        spec.bands(),
        spec.threshold(),
        spec.verify(),
        new JudgingMemory(spec.memory(), tmp, warnings::add));
  }

  /**
   * The first read into {@code clustering}, each record handed to {@code sink} (or none) once
   * judged.
   */
  private void judge(
      List<InputFile> inputs,
      KeyExtractor extractor,
      boolean durable,
      DocumentSink sink,
      Clustering clustering)
      throws IOException {
    judge(inputs, extractor, durable, sink, clustering, null, null);
  }

  /**
   * The first read, as above. With a state it tracks what it reads ({@link #cursor}); a streaming
   * job's {@code writer} checkpoints from it, and a resumed one's read must pass its checkpoint
   * {@code from} with the bytes it read the first time.
   */
  private void judge(
      List<InputFile> inputs,
      KeyExtractor extractor,
      boolean durable,
      DocumentSink sink,
      Clustering clustering,
      SurvivorWriter writer,
      NearDupState.Progress from)
      throws IOException {
    MinHasher hasher = clustering.hasher();
    FirstCopies firstCopies = new FirstCopies(clustering.memory());
    BadRecordPolicy policy = spec.onBadRecord();
    int[] toSign = new int[RecordBatch.MAX_RECORDS];
    int[] copyOf = new int[RecordBatch.MAX_RECORDS];
    try (OutputFile quarantine =
            policy instanceof BadRecordPolicy.Quarantine q ? OutputFile.open(q.file()) : null;
        InputStream in = standardInput();
        RecordSource source =
            durable
                ? trackingSource(inputs, extractor)
                : source(inputs, extractor, true, in, 0, 0, 0);
        BatchSigner signer = new BatchSigner(spec.threads(), hasher, spec)) {
      if (durable) {
        cursor = new InputCursor(source.reads(), InputPosition.START, inputs.size());
        if (from != null) {
          cursor.expect(from.position());
        }
        if (writer != null) {
          writer.track(cursor);
        }
      }
      while (true) {
        RecordBatch batch = source.next();
        if (toSign.length < batch.count) {
          toSign = new int[batch.count];
          copyOf = new int[batch.count];
        }
        // exact duplicates first, in order: only the others are shingled and signed
        int signing = 0;
        int position = clustering.documents();
        for (int i = 0; i < batch.count; i++) {
          if (batch.kind[i] == RecordBatch.OK) {
            int first =
                firstCopies.firstCopy(
                    batch.fingerprints[2 * i], batch.fingerprints[2 * i + 1], position++);
            copyOf[i] = first;
            if (first < 0) {
              toSign[signing++] = i;
            }
          }
        }
        try {
          signer.sign(batch, toSign, signing);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new java.io.InterruptedIOException("interrupted while signing documents");
        }
        for (int i = 0; i < batch.count; i++) {
          switch (batch.kind[i]) {
            case RecordBatch.OK -> {
              records++;
              documents++;
              int doc;
              if (copyOf[i] >= 0) {
                doc = clustering.addExactDuplicate(copyOf[i]);
                exactDuplicates++;
              } else {
                doc =
                    clustering.addSigned(signer.shingles(i), signer.signatures(), signer.offset(i));
              }
              if (sink != null) {
                sink.judged(batch, i, clustering, doc);
              }
            }
            case RecordBatch.BLANK -> blankLines++;
            case RecordBatch.HEADER -> {}
            default -> {
              records++;
              badRecords++;
              bad(batch, i, inputs.get(batch.fileIndex[i]).path(), quarantine);
            }
          }
          if (cursor != null) {
            cursor.handled(batch, i);
          }
          if (sink != null) {
            sink.passed(batch, i);
          }
        }
        if (sink != null) {
          sink.batchDone();
        }
        boolean end = batch.endOfInput;
        source.recycle(batch);
        if (end) {
          break;
        }
      }
      if (quarantine != null) {
        if (durable) {
          quarantine.sync(); // complete on disk before the judgement is committed
        } else {
          quarantine.flush();
        }
        quarantineBytes = quarantine.length();
      }
    }
  }

  private void bad(RecordBatch batch, int i, String name, OutputFile quarantine)
      throws IOException {
    if (spec.onBadRecord() instanceof BadRecordPolicy.Fail) {
      throw new BadRecordException(name, batch.line[i], batch.problem[i], false);
    }
    if (quarantine != null) {
      String w = quarantine.quarantine(batch, i, name);
      if (w != null) {
        warnings.add(w);
      }
    }
  }

  /**
   * What a read takes for {@code -}: standard input itself when streaming (one read), else its
   * copy, read from its start.
   */
  private InputStream standardInput() throws IOException {
    if (spec.streaming()) {
      return stdin;
    }
    return spool != null ? Files.newInputStream(spool) : InputStream.nullInputStream();
  }

  /** A source of records from a position; with the content's text when {@code text}. */
  static RecordSource source(
      NearDupSpec spec,
      List<InputFile> inputs,
      KeyExtractor extractor,
      boolean text,
      InputStream in,
      int file,
      long offset,
      long line) {
    return new RecordSource(inputs, settings(spec, extractor, text), in, file, offset, line);
  }

  private static RecordSource.Settings settings(
      NearDupSpec spec, KeyExtractor extractor, boolean text) {
    return new RecordSource.Settings(
        spec.format(), false, extractor.copy(), Fingerprinter.xxh3(), text, spec.maxRecordBytes());
  }

  /** The first read of a job with a state: it keeps what it reads, for the checkpoints. */
  private RecordSource trackingSource(List<InputFile> inputs, KeyExtractor extractor) {
    return RecordSource.tracking(inputs, settings(spec, extractor, true), 0, 0, 0, null, false);
  }

  private RecordSource source(
      List<InputFile> inputs,
      KeyExtractor extractor,
      boolean text,
      InputStream in,
      int file,
      long offset,
      long line) {
    return source(spec, inputs, extractor, text, in, file, offset, line);
  }
}
