package dev.idem.engine.job;

import dev.idem.core.Fingerprinter;
import dev.idem.core.filter.SnapshotDamagedException;
import dev.idem.core.shared.SharedSetLostException;
import dev.idem.engine.Closer;
import dev.idem.engine.ExpectedKeys;
import dev.idem.engine.JobException;
import dev.idem.engine.KeyMode;
import dev.idem.engine.input.InputFile;
import dev.idem.engine.input.InputPaths;
import dev.idem.engine.partition.PartitionedPlan;
import dev.idem.engine.records.BadRecordException;
import dev.idem.engine.records.InputCheck;
import dev.idem.engine.records.InputRead;
import dev.idem.engine.records.InputReads;
import dev.idem.engine.records.KeyExtractor;
import dev.idem.engine.records.RecordSource;
import dev.idem.engine.run.CrashPoints;
import dev.idem.engine.run.JobIdentity;
import dev.idem.engine.run.JobListener;
import dev.idem.engine.run.JobWarnings;
import dev.idem.engine.run.Json;
import dev.idem.engine.run.StateDirectory;
import dev.idem.engine.run.StateMismatchException;
import dev.idem.engine.state.Checkpoint;
import dev.idem.engine.state.ExactTierPlacement;
import dev.idem.engine.state.Manifest;
import dev.idem.engine.store.StateStore;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;

/**
 * The dedup job: reads records in input order, writes the first occurrence of each key (or of each
 * key in its time window), and, with a state directory, survives any crash with exactly-once
 * output.
 *
 * <p>Checkpoint {@code c} (docs/DESIGN.md, section 3): (1) flush and fsync the outputs and note
 * their lengths; (2) note the input position; (3) let the {@link Judge} add its changes (kept keys,
 * a filter snapshot now and then, window buckets); (4) write all of it and the checkpoint record in
 * one synced RocksDB batch. Resume reads the checkpoint, cuts the outputs back to their noted
 * lengths, restores the judge's state and reads on from the noted position: records after the
 * checkpoint meet the state they met the first time, so they are kept or dropped as they were — the
 * output equals that of an uninterrupted run.
 */
public final class DedupJob {

  /**
   * The phases a job reports to its {@link JobListener}, in order: a resumed job restores its tiers
   * (checkpoints replayed; the snapshot loads at 0) and checks what it read before (bytes); the
   * partitioned method partitions the keys (input bytes) and judges each partition (partitions);
   * then the records flow (input bytes as stored, with the records read and kept).
   */
  public static final String RESTORE = "restore";

  public static final String CHECK = "check";
  public static final String PARTITION = PartitionedPlan.PARTITION;
  public static final String JUDGE = PartitionedPlan.JUDGE;
  public static final String DEDUP = "dedup";

  private final DedupJobSpec spec;
  private final InputStream stdin;
  private final OutputStream stdout;
  private final JobListener listener;
  private final CrashPoints crash;
  private final JobWarnings warnings;
  private final JudgeAssembly judges;

  /** Whether a resume must check the part read before of the input it resumes in. */
  private boolean verifyStart;

  private DedupJob(
      DedupJobSpec spec,
      InputStream stdin,
      OutputStream stdout,
      JobListener listener,
      CrashPoints crash) {
    this.spec = spec;
    this.stdin = stdin;
    this.stdout = stdout;
    this.listener = listener;
    this.crash = crash;
    this.warnings = new JobWarnings(listener);
    this.judges = new JudgeAssembly(spec, listener, crash, warnings);
  }

  /**
   * Runs a job to the end of its inputs.
   *
   * @throws BadRecordException for a bad record under the fail policy (after a checkpoint)
   * @throws JobException when the job cannot start as asked
   * @throws IOException for unreadable inputs or unwritable outputs
   */
  public static JobResult run(
      DedupJobSpec spec, InputStream stdin, OutputStream stdout, JobListener listener)
      throws IOException {
    return run(spec, stdin, stdout, listener, CrashPoints.configured());
  }

  /** {@link #run}, calling {@code crash} at each step (test seam, see {@link CrashPoints}). */
  static JobResult run(
      DedupJobSpec spec,
      InputStream stdin,
      OutputStream stdout,
      JobListener listener,
      CrashPoints crash)
      throws IOException {
    // a snapshot used in place is verified page by page as it is read: a damaged page shows only
    // then, and throws instead of answering. What the job did since its last checkpoint is not
    // kept, so it is run again from there, as if by the same command, with the file moved aside
    // (each time another one: a full snapshot and its delta at most), and the resume rebuilds
    // what the file held from the journal or the exact store.
    for (int moved = 0; ; moved++) {
      try {
        return new DedupJob(spec, stdin, stdout, listener, crash).run();
      } catch (SnapshotDamagedException e) {
        if (spec.state() == null || e.file() == null || moved == MAX_DAMAGED_SNAPSHOTS) {
          throw RestoredTiers.damaged(e, null);
        }
        String aside = RestoredTiers.moveAside(e.file());
        if (aside == null) {
          throw RestoredTiers.damaged(e, "it could not be moved aside: delete it;");
        }
        listener.warning(
            e.getMessage()
                + "; moved it to "
                + aside
                + " and resumed again from the last checkpoint, rebuilding what it held");
      }
    }
  }

  /** The most damaged snapshots one run moves aside: a full one and its delta, and a margin. */
  private static final int MAX_DAMAGED_SNAPSHOTS = 3;

  private JobResult run() throws IOException {
    long started = System.nanoTime();
    DedupPreconditions.check(spec);
    List<InputFile> inputs = InputFile.expand(spec.inputs());
    if (spec.inputs().stream().anyMatch(InputPaths::isPattern)) {
      listener.note(
          String.format(
              Locale.ROOT, "%,d input file%s found", inputs.size(), inputs.size() == 1 ? "" : "s"));
    }
    if (spec.state() != null) {
      InputFile.requireFiles(inputs, "a job with --state reads its inputs again when it resumes");
    }
    if (spec.history() != null) {
      InputFile.requireFiles(
          inputs,
          "a run over a --history reads its inputs again when it resumes, and is known by them");
    }
    Fingerprinter fingerprinter =
        Fingerprinter.xxh3().withSeed(spec.seed()).withNormalizer(spec.normalizer());
    boolean windowed = spec.window() != null;
    RecordSource.Settings settings = settings(fingerprinter);

    StateDirectory dir = null;
    StateStore store = null;
    Checkpoint cp = Checkpoint.START;
    RestoreClock clock = new RestoreClock();
    boolean fullKeys = spec.keyMode() == KeyMode.FULL_KEY;
    try (Closer closer = new Closer()) {
      if (spec.state() != null) {
        dir = closer.register(StateDirectory.open(spec.state(), Manifest.FILE));
        if (spec.history() == null && Files.exists(dir.path().resolve(Manifest.FILE))) {
          // a resume: RocksDB opens while the manifest is read and checked
          Path storeDir = dir.storeDirectory();
          clock.openStoreEarly(
              () -> StateStore.openExisting(storeDir, spec.rocksDbCacheBytes(), fullKeys));
          closer.register(clock::closeUnclaimedStore);
        }
      }
      ExpectedKeys expected =
          windowed ? ExpectedKeys.UNKNOWN : JobStart.expectedKeys(spec, dir, listener);
      Manifest manifest = JobStart.manifest(spec, inputs, expected);
      if (spec.history() != null) {
        return runOverHistory(inputs, settings, manifest, started);
      }
      if (dir != null) {
        Manifest existing = Manifest.read(dir.path());
        if (existing == null) {
          // the store before the manifest: a state with a manifest always has its store, so a
          // missing store is damage to report, not a new job to start silently
          store =
              closer.register(
                  StateStore.open(dir.storeDirectory(), spec.rocksDbCacheBytes(), fullKeys));
          if (store.meta("checkpoint") != null) {
            throw new JobException(
                dir.path().resolve(Manifest.FILE)
                    + " is missing, but "
                    + dir.storeDirectory()
                    + " holds checkpoints: the state was damaged; restore the manifest, or start over "
                    + "with a new state directory");
          }
          crash.reached(DedupStep.STORE_CREATED);
          manifest.write(dir.path());
          crash.reached(DedupStep.MANIFEST_WRITTEN);
        } else {
          manifest = checkManifest(existing, manifest);
          clock.stateOpened();
          Path storeDir = dir.storeDirectory();
          store =
              closer.register(
                  clock.claimStore(
                      () -> StateStore.openExisting(storeDir, spec.rocksDbCacheBytes(), fullKeys)));
        }
        byte[] saved = store.meta("checkpoint");
        if (saved != null) {
          cp = Json.read(saved, Checkpoint.class);
        }
        clock.storeOpened();
        if (cp.complete()) {
          return result(cp, DedupSetup.complete(manifest), started);
        }
        Manifest m = manifest;
        Checkpoint at = cp;
        StateStore s = store;
        clock.startInputCheck(() -> inputCheck(m, inputs, at, s));
        // the check reads the store: a job that stops before awaiting it waits for it before the
        // store closes (the closer closes in reverse order)
        closer.register(clock::awaitInputCheckQuietly);
        // the tiers are restored while the inputs are checked; the other methods wait here
        if (spec.shared() != null
            || windowed
            || manifest.exactTier().kind() == ExactTierPlacement.Kind.PARTITIONED) {
          checkedInputs(clock.awaitInputCheck(), store);
        }
      }
      DedupSetup setup;
      if (spec.shared() != null) {
        setup = judges.shared(manifest, dir, cp);
      } else if (windowed) {
        setup = judges.windowed(manifest, store, cp, fingerprinter);
      } else if (manifest.exactTier().kind() == ExactTierPlacement.Kind.PARTITIONED) {
        setup = judges.partitioned(manifest, dir, cp, inputs, settings, closer);
      } else if (dir != null) {
        StateStore s = store;
        setup =
            judges.restored(
                dir,
                store,
                cp,
                manifest,
                fingerprinter,
                clock,
                () -> checkedInputs(clock.awaitInputCheck(), s));
      } else {
        setup = judges.fresh(manifest, expected, inputs, fingerprinter, closer);
      }
      if (spec.seenBefore() != null) {
        setup = judges.withSeenBefore(setup, fingerprinter);
      }
      closer.register(setup.judge());
      return loop(null).run(inputs, settings, setup, dir, store, cp, started);
    } catch (SharedSetLostException e) {
      throw new SharedSetLostException(
          e.getMessage() + " " + SharedJudge.afterLoss(spec.state()), e);
    } catch (IOException | RuntimeException e) {
      throw e;
    } catch (Exception e) {
      throw new IllegalStateException("closing the job's resources failed", e);
    }
  }

  /**
   * A run over a history: its keys are judged by the history's durable deduplicator, and its
   * checkpoints are that deduplicator's commits ({@link HistoryRun}); the records flow through the
   * job's own loop and outputs as with {@code --state}.
   */
  private JobResult runOverHistory(
      List<InputFile> inputs, RecordSource.Settings settings, Manifest manifest, long started)
      throws IOException {
    Fingerprinter fingerprinter = settings.fingerprinter();
    try (HistoryRun run = HistoryRun.open(spec, inputs, fingerprinter, listener, crash)) {
      DedupSetup setup =
          new DedupSetup(
              new HistoryJudge(run.deduplicator()),
              manifest.withTiers(ExactTierPlacement.ROCKSDB, run.filter().type()),
              ExactTierPlacement.ROCKSDB,
              run.filter(),
              RestoreCost.NONE);
      if (run.done() != null) {
        return result(run.done().checkpoint(), setup, started);
      }
      verifyStart = run.verifyStart();
      return loop(run).run(inputs, settings, setup, null, null, run.start(), started);
    }
  }

  private RecordLoop loop(HistoryRun history) {
    return new RecordLoop(spec, stdin, stdout, listener, crash, warnings, history, verifyStart);
  }

  /** The result of a run that found its job already complete. */
  private JobResult result(Checkpoint cp, DedupSetup setup, long started) {
    return JobResult.of(cp, cp, true, setup, spec.shared() != null, 0, started, 0, warnings.list());
  }

  private RecordSource.Settings settings(Fingerprinter fingerprinter) throws JobException {
    try {
      KeyExtractor extractor = KeyExtractor.of(spec.key(), spec.format());
      WindowSpec w = spec.window();
      RecordSource.TimeField time =
          w == null || w.timeField() == null
              ? null
              : new RecordSource.TimeField(
                  KeyExtractor.of(w.timeField(), spec.format()), w.timeFormat());
      return new RecordSource.Settings(
          spec.format(),
          spec.header(),
          extractor,
          fingerprinter,
          spec.keyMode() == KeyMode.FULL_KEY,
          spec.maxRecordBytes(),
          time,
          spec.threads());
    } catch (IllegalArgumentException e) {
      throw new JobException(e.getMessage());
    }
  }

  /** Checks that the inputs still hold what the job read ({@link InputCheck}); on any thread. */
  private InputCheck.Outcome inputCheck(
      Manifest manifest, List<InputFile> inputs, Checkpoint cp, StateStore store)
      throws IOException {
    return InputCheck.run(
        manifest.inputs(),
        inputs,
        cp.fileIndex(),
        cp.offset(),
        cp.read(),
        f -> {
          byte[] read = store.meta(InputReads.metaKey(f));
          return read == null ? null : Json.read(read, InputRead.class);
        },
        spec.verifyInputs());
  }

  /** Refuses to resume over inputs that no longer hold what the job read: the check's outcome. */
  private void checkedInputs(InputCheck.Outcome o, StateStore store) throws IOException {
    o.notes().forEach(listener::note);
    warnings.addAll(o.warnings());
    verifyStart = o.verifyStart();
    if (!o.vouched().isEmpty()) {
      try (StateStore.Commit commit = store.commit()) {
        o.vouched().forEach((f, read) -> commit.meta(InputReads.metaKey(f), Json.write(read)));
        commit.write(true);
      }
    }
  }

  /** Checks a resumed job's manifest against this command's. */
  private Manifest checkManifest(Manifest existing, Manifest now) throws JobException {
    // what was chosen for the user stays chosen: the input may look different on a resume
    now =
        now.withTiers(
            spec.exactTier() == ExactTierChoice.AUTO ? existing.exactTier() : now.exactTier(),
            spec.filterType() == null ? existing.filterType() : now.filterType());
    List<JobIdentity.Difference> differences = existing.differencesFrom(now);
    if (!differences.isEmpty()) {
      throw new StateMismatchException(spec.state(), "dedup", differences);
    }
    return existing;
  }
}
