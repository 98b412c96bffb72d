package dev.idem.engine.job;

import dev.idem.core.Fingerprinter;
import dev.idem.core.filter.MembershipFilter;
import dev.idem.engine.Deduplicator;
import dev.idem.engine.DurableDeduplicator;
import dev.idem.engine.Idem;
import dev.idem.engine.JobException;
import dev.idem.engine.input.InputFile;
import dev.idem.engine.output.OutputFile;
import dev.idem.engine.records.InputCheck;
import dev.idem.engine.records.InputRead;
import dev.idem.engine.records.InputReads;
import dev.idem.engine.run.CrashPoints;
import dev.idem.engine.run.InputPosition;
import dev.idem.engine.run.JobIdentity;
import dev.idem.engine.run.JobListener;
import dev.idem.engine.run.ResumableRun;
import dev.idem.engine.state.Checkpoint;
import dev.idem.engine.state.Manifest;
import dev.idem.engine.store.DirectoryLock;
import dev.idem.engine.store.TierAssembly;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * One dedup run over a history ({@code --history DIR}, docs/HISTORY.md): the library's durable
 * deduplicator on {@code DIR} is the judge's state, and each checkpoint of the dedup job is one
 * commit of it whose token is a {@link HistoryCheckpoint}, as the Parquet job commits its own.
 *
 * <p>The protocol, in the kernel's terms (docs/DESIGN.md, section 3): <b>open</b> takes the
 * history's lock (one run at a time); <b>identify</b> compares this command with the run the token
 * names: the same unfinished run resumes, another is refused while one is unfinished, a completed
 * run (the last, or one recorded in {@link HistoryRuns}) is said to be complete and nothing is
 * touched; a new run commits its start token before any output is opened. <b>Check the inputs</b>
 * of a resumed run against what it read. Each <b>checkpoint</b> syncs the outputs and then commits
 * the keys kept since the last one together with the position and output marks they stand for, in
 * one synced write: the history holds a run's keys exactly as far as its outputs are committed, so
 * a killed run's resume meets the keys of its own committed records and no other.
 */
final class HistoryRun implements AutoCloseable {

  /** The history's crash points, besides the dedup job's. */
  enum Step {
    /** A run's start token committed: the run exists, no output opened yet. */
    RUN_STARTED,
    /** A run's record in {@code runs/} written, the commit that completes it not yet. */
    RUN_RECORDED
  }

  private final Path dir;
  private final DurableDeduplicator durable;
  private final CrashPoints crash;
  private final long keysBefore;
  private HistoryCheckpoint current;
  private final List<InputRead> ended;
  private final HistoryCheckpoint done;
  private boolean verifyStart;

  private HistoryRun(
      Path dir,
      DurableDeduplicator durable,
      CrashPoints crash,
      long keysBefore,
      HistoryCheckpoint current,
      HistoryCheckpoint done) {
    this.dir = dir;
    this.durable = durable;
    this.crash = crash;
    this.keysBefore = keysBefore;
    this.current = current;
    this.done = done;
    this.ended = current == null ? new ArrayList<>() : new ArrayList<>(current.ended());
  }

  /**
   * Opens the history for this command's run: a new run (its start committed), the resume of the
   * unfinished one, or a completed one ({@link #done}).
   *
   * @throws JobException when the directory is not a history, is in use, or holds another
   *     unfinished run
   */
  static HistoryRun open(
      DedupJobSpec spec,
      List<InputFile> inputs,
      Fingerprinter fingerprinter,
      JobListener listener,
      CrashPoints crash)
      throws IOException {
    Path dir = spec.history();
    refuseOtherDirectories(dir);
    Deduplicator.Builder b =
        Idem.deduplicator()
            .state(dir)
            .fingerprinter(fingerprinter)
            .keyMode(spec.keyMode())
            .maxMemory(Math.max(8L << 20, spec.rocksDbCacheBytes()));
    sizing(b, spec);
    DurableDeduplicator durable;
    try {
      // one open: an existing history's own sizing is read by it, not by a read-only open first
      durable = TierAssembly.openWithSavedSizing(b);
    } catch (IOException e) {
      String holder = DirectoryLock.holder(dir);
      if (!holder.isEmpty() && String.valueOf(e.getMessage()).contains("in use")) {
        throw new JobException(
            "history "
                + dir
                + " is in use by another process ("
                + holder
                + "): a history takes one run at a time; wait for that one to end");
      }
      throw e;
    }
    try {
      // before this run marks anything, the exact tier holds the committed keys and no others
      long keys = TierAssembly.exactTier(durable).size();
      return decide(spec, dir, durable, inputs, listener, crash, keys);
    } catch (Throwable e) { // errors too: the lock must not outlive a failed open in this JVM
      try {
        durable.abandon();
      } catch (IOException suppressed) {
        e.addSuppressed(suppressed);
      }
      throw e;
    }
  }

  private static HistoryRun decide(
      DedupJobSpec spec,
      Path dir,
      DurableDeduplicator durable,
      List<InputFile> inputs,
      JobListener listener,
      CrashPoints crash,
      long keys)
      throws IOException {
    JobIdentity identity = identity(spec, inputs);
    byte[] token = durable.lastCommittedToken();
    HistoryCheckpoint last = token == null ? null : HistoryCheckpoint.decode(dir, token);
    HistoryRuns runs = new HistoryRuns(dir);
    long next = last == null ? 1 : last.run() + 1;
    if (last != null && !last.complete()) {
      List<JobIdentity.Difference> differences = last.identity().differencesFrom(identity);
      if (!differences.isEmpty() && last.checkpoint().sequence() == 0) {
        // it committed nothing but its start (it failed at its first record, say a wrong key):
        // no key or output stands for it, so this command takes its place
        listener.note(
            "history " + dir + ": " + last.describe() + " committed nothing; this run replaces it");
        next = last.run();
        last = null;
      } else if (!differences.isEmpty()) {
        throw new JobException(
            "history "
                + dir
                + " has an unfinished "
                + last.describe()
                + ", and this command is another run ("
                + differences.stream().map(Object::toString).collect(Collectors.joining("; "))
                + "). A history takes one run at a time: finish that run first by running its "
                + "command again (it resumes from its last checkpoint), then this one");
      } else {
        HistoryRun run = new HistoryRun(dir, durable, crash, keys, last, null);
        run.checkInputs(spec, inputs, listener);
        listener.note(
            String.format(
                Locale.ROOT,
                "history %s: resuming run %d at record %,d (%,d keys in the history)",
                dir,
                last.run(),
                last.checkpoint().records(),
                keys));
        return run;
      }
    }
    if (last != null && last.identity().differencesFrom(identity).isEmpty()) {
      return completed(dir, durable, crash, keys, last, listener);
    }
    HistoryCheckpoint earlier = runs.find(identity, next);
    if (earlier != null) {
      return completed(dir, durable, crash, keys, earlier, listener);
    }
    if (last != null && !runs.recorded(last.run())) {
      runs.record(last); // complete: the token is about to name the next run
    }
    HistoryCheckpoint start =
        new HistoryCheckpoint(
            identity, next, Instant.now().toString(), Checkpoint.START, List.of());
    durable.commit(start.encode()); // before any output is opened: the run exists from here
    crash.reached(Step.RUN_STARTED);
    listener.note(
        String.format(
            Locale.ROOT, "history %s: run %d; %,d keys from earlier runs", dir, start.run(), keys));
    return new HistoryRun(dir, durable, crash, keys, start, null);
  }

  private static HistoryRun completed(
      Path dir,
      DurableDeduplicator durable,
      CrashPoints crash,
      long keys,
      HistoryCheckpoint run,
      JobListener listener) {
    listener.note(
        "history "
            + dir
            + ": this command is "
            + run.describe()
            + ", already complete: nothing changed");
    return new HistoryRun(dir, durable, crash, keys, null, run);
  }

  /**
   * The run's identity: its inputs and what decides which of their records it writes and where. How
   * keys are hashed (seed, normaliser, key mode) is the history's own, checked when it opens.
   */
  static JobIdentity identity(DedupJobSpec spec, List<InputFile> inputs) {
    Map<String, String> m = new LinkedHashMap<>();
    m.put("format", spec.format().name().toLowerCase(Locale.ROOT));
    m.put("key", spec.key().describe());
    m.put("header", Boolean.toString(spec.header()));
    m.put("max record bytes", Integer.toString(spec.maxRecordBytes()));
    m.put("output", OutputFile.absolute(spec.output()));
    m.put("dropped", OutputFile.absolute(spec.dropped()));
    return new JobIdentity(HistoryCheckpoint.JOB, inputs, m);
  }

  /**
   * The filter of a new history is sized as the command says; an existing history keeps its own
   * (its filter grows as keys join it; {@link TierAssembly#openWithSavedSizing}), so later runs
   * need not repeat the sizing options.
   */
  private static void sizing(Deduplicator.Builder b, DedupJobSpec spec) {
    if (spec.filterType() != null) {
      b.filterType(spec.filterType());
    }
    if (spec.expectedKeys().isKnown()) {
      b.expectedKeys(spec.expectedKeys().count());
    }
    b.falsePositiveRate(spec.fpp());
  }

  /** Files a history may hold; a directory with others is not one, and is not written to. */
  private static final Set<String> HISTORY_FILES =
      Set.of("LOCK", "store", "store.created", HistoryRuns.DIRECTORY);

  private static void refuseOtherDirectories(Path dir) throws IOException {
    if (!Files.isDirectory(dir)) {
      if (Files.exists(dir)) {
        throw new JobException("history " + dir + " is a file: give a directory");
      }
      return;
    }
    if (Files.exists(dir.resolve(Manifest.FILE))) {
      throw new JobException(
          dir
              + " is the state of a dedup job (--state), not a history: give --history a "
              + "directory of its own");
    }
    List<String> others;
    try (Stream<Path> files = Files.list(dir)) {
      others =
          files
              .map(p -> p.getFileName().toString())
              .filter(n -> !HISTORY_FILES.contains(n) && !n.matches("\\.?filter-.*"))
              .sorted()
              .toList();
    }
    if (!others.isEmpty()) {
      throw new JobException(
          "history "
              + dir
              + " holds files that are not a history's ("
              + String.join(", ", others.subList(0, Math.min(5, others.size())))
              + (others.size() > 5 ? ", ..." : "")
              + "): give a new or empty directory, or an existing history");
    }
  }

  /** Refuses to resume over inputs that no longer hold what the run read (as every job). */
  private void checkInputs(DedupJobSpec spec, List<InputFile> inputs, JobListener listener)
      throws IOException {
    Checkpoint cp = current.checkpoint();
    InputPosition at =
        new InputPosition(cp.fileIndex(), cp.offset(), cp.line(), cp.read(), current.ended());
    InputCheck.Outcome o =
        ResumableRun.checkInputs(
            current.identity().inputs(), inputs, at, spec.verifyInputs(), listener);
    verifyStart = o.verifyStart();
    ended.clear();
    ended.addAll(ResumableRun.vouched(at, o).ended());
  }

  /** The deduplicator: the history's keys, and this run's committed and pending. */
  Deduplicator deduplicator() {
    return durable;
  }

  MembershipFilter filter() {
    return durable.filter();
  }

  /** The checkpoint the run goes on from, or {@code null} when it is {@link #done}. */
  Checkpoint start() {
    return current == null ? null : current.checkpoint();
  }

  /** The completed run this command is, or {@code null} when it has work to do. */
  HistoryCheckpoint done() {
    return done;
  }

  /** Whether the resume must check the part read before of the input it resumes in. */
  boolean verifyStart() {
    return verifyStart;
  }

  /** Keys in the history when this run opened it. */
  long keysBefore() {
    return keysBefore;
  }

  /**
   * Commits checkpoint {@code cp}: the keys kept since the last one, with the token that says how
   * far the outputs (already synced) stand for them. A complete run is recorded in {@code runs/}
   * first, so that it is recognised once the next run's token replaces its own.
   */
  void commit(Checkpoint cp, InputReads reads) throws IOException {
    for (int f = ended.size(); f < cp.fileIndex(); f++) {
      ended.add(reads == null ? null : reads.ended(f));
    }
    HistoryCheckpoint next = current.at(cp, ended);
    if (cp.complete()) {
      new HistoryRuns(dir).record(next);
      crash.reached(Step.RUN_RECORDED);
    }
    durable.commit(next.encode());
    current = next;
  }

  /**
   * Releases the history. Marks after the last commit are dropped, as a crash drops them: they
   * stand for records whose output the next resume cuts back.
   */
  @Override
  public void close() {
    durable.close(); // every commit carries a token: close() commits nothing more
  }
}
