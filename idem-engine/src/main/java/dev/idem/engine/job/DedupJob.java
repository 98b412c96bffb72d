package dev.idem.engine.job;

import dev.idem.core.ByteSize;
import dev.idem.core.Fingerprinter;
import dev.idem.core.filter.FilterType;
import dev.idem.core.filter.Filters;
import dev.idem.core.filter.MembershipFilter;
import dev.idem.core.filter.SnapshotDamagedException;
import dev.idem.core.filter.StripedFingerprintSet;
import dev.idem.core.shared.SharedSeenSet;
import dev.idem.core.shared.SharedSetLostException;
import dev.idem.core.window.WindowKind;
import dev.idem.engine.Closer;
import dev.idem.engine.DedupMode;
import dev.idem.engine.Deduplicator;
import dev.idem.engine.ExpectedKeys;
import dev.idem.engine.JobException;
import dev.idem.engine.KeyMode;
import dev.idem.engine.Verdict;
import dev.idem.engine.plan.JobMemory;
import dev.idem.engine.records.BadRecordException;
import dev.idem.engine.records.BadRecordPolicy;
import dev.idem.engine.records.InputCheck;
import dev.idem.engine.records.InputEstimate;
import dev.idem.engine.records.InputFile;
import dev.idem.engine.records.InputPaths;
import dev.idem.engine.records.InputRead;
import dev.idem.engine.records.InputReads;
import dev.idem.engine.records.KeyExtractor;
import dev.idem.engine.records.OutputFile;
import dev.idem.engine.records.OutputGuard;
import dev.idem.engine.records.RecordBatch;
import dev.idem.engine.records.RecordSource;
import dev.idem.engine.records.ScratchDirectory;
import dev.idem.engine.run.CrashPoints;
import dev.idem.engine.run.JobIdentity;
import dev.idem.engine.run.Json;
import dev.idem.engine.run.StateDirectory;
import dev.idem.engine.run.StateMismatchException;
import dev.idem.engine.shard.ShardSpec;
import dev.idem.engine.state.Checkpoint;
import dev.idem.engine.state.ExactTierPlacement;
import dev.idem.engine.state.Manifest;
import dev.idem.engine.store.ExactTier;
import dev.idem.engine.store.ExactTiers;
import dev.idem.engine.store.StateStore;
import dev.idem.engine.store.TierAssembly;
import dev.idem.engine.window.WindowStats;
import dev.idem.engine.window.WindowedDeduplicator;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

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

  /** Hears about a running job (progress, warnings). Called on the job's thread. */
  public interface Listener {
    /**
     * Where the reading of the records is: input bytes as stored, of all inputs. A resumed job's
     * first call says where it starts (the inputs read before the crash count as done), so a speed
     * or an ETA counts from there.
     */
    default void progress(long rawBytesDone, long rawBytesTotal, long records, long kept) {}

    /**
     * Where a step before the records flow is ({@link Step} says what it counts): about twice a
     * second, and once with {@code done == total} when it ends.
     */
    default void step(Step step, long done, long total) {}

    default void warning(String message) {}

    /** Something the user should know that is not a problem (e.g. a size chosen for them). */
    default void note(String message) {}
  }

  /** A step a job takes before its records flow, each with its own progress. */
  public enum Step {
    /**
     * A resumed job loads its last snapshot, then puts the keys journaled since back: checkpoints
     * replayed (the snapshot loads at 0).
     */
    RESTORE,
    /**
     * A resumed job reads again the part of its input it read before the crash, to check that it
     * did not change: bytes, uncompressed.
     */
    CHECK,
    /** The partitioned method's first read, which sends each key to its partition: input bytes. */
    PARTITION,
    /** The partitioned method judges its partition files, one at a time: partitions. */
    JUDGE
  }

  static final long PROGRESS_MILLIS = 500;

  /**
   * The records whose keys the exact set in memory of a job on standard input alone is first sized
   * for, when {@code --expected} does not say: it grows from there.
   */
  static final long STDIN_SET_CAPACITY = 1 << 16;

  private final DedupJobSpec spec;
  private final InputStream stdin;
  private final OutputStream stdout;
  private final Listener listener;
  private final CrashPoints crash;
  private final List<String> warnings = new ArrayList<>();

  /** Whether a resume must check the part read before of the input it resumes in. */
  private boolean verifyStart;

  private DedupJob(
      DedupJobSpec spec,
      InputStream stdin,
      OutputStream stdout,
      Listener listener,
      CrashPoints crash) {
    this.spec = spec;
    this.stdin = stdin;
    this.stdout = stdout;
    this.listener = listener;
    this.crash = crash;
  }

  /**
   * Runs a job to the end of its inputs.
   *
   * @throws BadRecordException for a bad record under the fail policy (after a checkpoint)
   * @throws JobException when the job cannot start as asked
   * @throws IOException for unreadable inputs or unwritable outputs
   */
  public static JobResult run(
      DedupJobSpec spec, InputStream stdin, OutputStream stdout, Listener listener)
      throws IOException {
    return run(spec, stdin, stdout, listener, CrashPoints.configured());
  }

  /** {@link #run}, calling {@code crash} at each step (test seam, see {@link CrashPoints}). */
  static JobResult run(
      DedupJobSpec spec,
      InputStream stdin,
      OutputStream stdout,
      Listener listener,
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

  /** What {@link #run} assembled before reading: the judge and how it came to be. */
  private record Setup(
      Judge judge,
      Manifest manifest,
      ExactTierPlacement exactTier,
      MembershipFilter filter,
      RestoreCost restore) {}

  private JobResult run() throws IOException {
    long started = System.nanoTime();
    if (spec.state() != null && spec.output() == null) {
      throw new JobException(
          "a job with a state directory needs an output file: standard "
              + "output cannot be cut back to a checkpoint, so a resumed job could repeat records");
    }
    if (spec.shared() != null
        && (spec.window() != null
            || spec.shard() != null
            || spec.mode() == DedupMode.APPROXIMATE
            || spec.keyMode() == KeyMode.FULL_KEY)) {
      throw new JobException(
          "a shared exact store works alone: not with windows, a shard, "
              + "approximate mode or full keys");
    }
    refuseDestructivePaths();
    List<InputFile> inputs = InputFile.expand(spec.inputs());
    if (spec.inputs().stream().anyMatch(InputPaths::isPattern)) {
      listener.note(
          String.format(
              java.util.Locale.ROOT,
              "%,d input file%s found",
              inputs.size(),
              inputs.size() == 1 ? "" : "s"));
    }
    if (spec.state() != null) {
      InputFile.requireFiles(inputs, "a job with --state reads its inputs again when it resumes");
    }
    Fingerprinter fingerprinter =
        Fingerprinter.xxh3().withSeed(spec.seed()).withNormalizer(spec.normalizer());
    boolean windowed = spec.window() != null;
    boolean fullKeys = spec.keyMode() == KeyMode.FULL_KEY;
    RecordSource.Settings settings = settings(fingerprinter);

    StateDirectory dir = null;
    StateStore store = null;
    Checkpoint cp = Checkpoint.START;
    Setup setup = null;
    RestoreClock clock = new RestoreClock();
    try (Closer closer = new Closer()) {
      if (spec.state() != null) {
        dir = closer.register(StateDirectory.open(spec.state(), Manifest.FILE));
        if (java.nio.file.Files.exists(dir.path().resolve(Manifest.FILE))) {
          // a resume: RocksDB opens while the manifest is read and checked
          Path storeDir = dir.storeDirectory();
          clock.openStoreEarly(
              () -> StateStore.openExisting(storeDir, spec.rocksDbCacheBytes(), fullKeys));
          closer.register(clock::closeUnclaimedStore);
        }
      }
      ExpectedKeys expected =
          windowed ? ExpectedKeys.UNKNOWN : JobStart.expectedKeys(spec, dir, listener);
      long capacity =
          windowed
              ? 0
              : expected.isKnown()
                  ? expected.count()
                  : InputEstimate.distinctKeysUpperBound(inputs, spec.format());
      ExactTierPlacement exactTier =
          spec.shared() != null
              ? ExactTierPlacement.shared(spec.shared().describe())
              : windowed || spec.mode() == DedupMode.APPROXIMATE
                  ? ExactTierPlacement.NONE
                  : ExactTierChoice.place(spec, capacity, fullKeys, !expected.isKnown(), inputs);
      // an exact set in memory needs no filter in front of it: it is the filter (see RestoredTiers)
      FilterType filterType =
          spec.filterType() != null
              ? spec.filterType()
              : exactTier == ExactTierPlacement.MEMORY && !fullKeys
                  ? FilterType.EXACT_STRIPED
                  : Filters.defaultType(expected.countOr(-1));
      Manifest manifest =
          new Manifest(
              Manifest.FORMAT_VERSION,
              Instant.now().toString(),
              inputs,
              spec.format(),
              spec.key().describe(),
              spec.header(),
              spec.normalizer().spec(),
              spec.mode(),
              spec.keyMode(),
              exactTier,
              filterType,
              capacity,
              expected,
              spec.fpp(),
              spec.seed(),
              spec.maxRecordBytes(),
              OutputFile.absolute(spec.output()),
              OutputFile.absolute(spec.dropped()),
              windowed ? spec.window().describe() : null,
              spec.shard() == null ? null : spec.shard().describe(),
              spec.seenBefore() == null ? null : JobStart.describeFile(spec.seenBefore()),
              spec.shared() == null || spec.state() == null
                  ? null
                  : JobStart.newWorkerId(spec.state()));
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
          return result(
              cp,
              cp,
              true,
              new Setup(null, manifest, manifest.exactTier(), null, RestoreCost.NONE),
              0,
              started,
              0);
        }
        Manifest m = manifest;
        Checkpoint at = cp;
        StateStore s = store;
        clock.startInputCheck(() -> inputCheck(m, inputs, at, s));
        // the check reads the store: a job that stops before awaiting it waits for it before the
        // store closes (the closer closes in reverse order)
        closer.register(clock::awaitInputCheckQuietly);
        // a resume of the tiers restores them while the inputs are checked; the others wait here
        if (spec.shared() != null
            || windowed
            || manifest.exactTier().kind() == ExactTierPlacement.Kind.PARTITIONED) {
          checkedInputs(clock.awaitInputCheck(), store);
        }
      }
      if (spec.shared() != null) {
        String worker = JobStart.workerId(spec, manifest);
        SharedSeenSet.Start start =
            dir == null
                ? SharedSeenSet.Start.WITHOUT_STATE
                : cp.sequence() > 0 ? SharedSeenSet.Start.RESUMED : SharedSeenSet.Start.NEW;
        setup =
            new Setup(
                new SharedJudge(spec.shared().open(worker, start, sharedListener()), worker),
                manifest,
                exactTier,
                null,
                RestoreCost.NONE);
      } else if (windowed) {
        setup = windowSetup(manifest, store, cp, fingerprinter);
      } else if (manifest.exactTier().kind() == ExactTierPlacement.Kind.PARTITIONED) {
        setup = partitionedSetup(manifest, dir, cp, inputs, settings, closer);
      } else if (dir != null) {
        RestoredTiers tiers =
            RestoredTiers.restore(dir, store, cp, manifest, fingerprinter, capacity, listener);
        checkedInputs(clock.awaitInputCheck(), store);
        crash.reached(DedupStep.TIERS_RESTORED);
        dir.deleteSnapshotsExcept(cp.snapshotSequence(), cp.deltaSequence());
        warnings.addAll(tiers.warnings);
        tiers.warnings.forEach(listener::warning);
        setup =
            tieredSetup(
                manifest,
                tiers,
                dir,
                fingerprinter,
                cp.snapshotSequence(),
                cp.deltaSequence(),
                clock.add(tiers.restore));
      } else {
        // standard input has no size to guess the keys from: an exact set in memory starts small
        // and grows, rather than take the guess's room for millions of keys (100 MiB for 47 KB)
        long setCapacity =
            exactTier.kind() == ExactTierPlacement.Kind.MEMORY
                    && !expected.isKnown()
                    && inputs.stream().allMatch(InputFile::isStdin)
                ? Math.min(capacity, STDIN_SET_CAPACITY)
                : capacity;
        MembershipFilter filter =
            Filters.forKeys(
                filterType,
                expected.countOr(-1),
                RestoredTiers.setAlone(manifest) ? setCapacity : capacity,
                spec.fpp());
        ExactTier exact = null;
        if (RestoredTiers.setAlone(manifest)) {
          // the filter is the exact set
        } else if (exactTier.kind() == ExactTierPlacement.Kind.MEMORY) {
          exact = ExactTiers.inMemory(setCapacity, fullKeys);
        } else if (exactTier.kind() == ExactTierPlacement.Kind.ROCKSDB) {
          ScratchDirectory ephemeral = scratch("idem-dedup-", "a RocksDB exact tier");
          closer.register(ephemeral::delete); // after the tier is closed
          exact = ExactTiers.inRocksDb(ephemeral.path(), spec.rocksDbCacheBytes(), fullKeys);
        }
        setup =
            tieredSetup(
                manifest,
                RestoredTiers.fresh(filter, exact),
                null,
                fingerprinter,
                0,
                0,
                RestoreCost.NONE);
      }
      if (spec.seenBefore() != null) {
        setup =
            new Setup(
                new SeenBeforeJudge(setup.judge(), JobStart.seenBefore(spec, fingerprinter)),
                setup.manifest(),
                setup.exactTier(),
                setup.filter(),
                setup.restore());
      }
      closer.register(setup.judge());
      return read(inputs, settings, setup, dir, store, cp, started);
    } catch (SharedSetLostException e) {
      throw new SharedSetLostException(e.getMessage() + " " + afterSharedSetLost(), e);
    } catch (IOException | RuntimeException e) {
      throw e;
    } catch (Exception e) {
      throw new IllegalStateException("closing the job's resources failed", e);
    }
  }

  /**
   * The partitioned method: its plan ({@link PartitionedPlan}) in the state directory, or in a
   * temporary directory deleted at the end, then a judge that reads the plan's verdicts.
   */
  private Setup partitionedSetup(
      Manifest manifest,
      StateDirectory dir,
      Checkpoint cp,
      List<InputFile> inputs,
      RecordSource.Settings settings,
      Closer closer)
      throws IOException {
    Path planDir;
    if (dir != null) {
      planDir = dir.path().resolve("plan");
    } else {
      ScratchDirectory scratch = scratch("idem-plan-", "the partitioned method's plan");
      planDir = scratch.path().resolve("plan");
      closer.register(scratch::delete); // after the judge is closed
    }
    DuplicateBits bits =
        PartitionedPlan.run(
            planDir,
            dir != null,
            inputs,
            settings,
            Math.max(1L << 20, ExactTierChoice.memory(spec) - JobMemory.WORKING_HEAP),
            InputEstimate.distinctKeysUpperBound(inputs, spec.format()),
            spec.checkpointRecords(),
            spec.checkpointInterval(),
            spec.verifyInputs(),
            listener,
            crash);
    return new Setup(
        new PlannedJudge(bits, cp.records() - cp.badRecords()),
        manifest,
        manifest.exactTier(),
        null,
        RestoreCost.NONE);
  }

  /**
   * A locked directory of this job's in {@code --tmp} (or the system's temporary directory),
   * removed at the end; what killed jobs left there is removed first ({@link ScratchDirectory}).
   */
  private ScratchDirectory scratch(String prefix, String what) throws IOException {
    Path tmp =
        spec.tempDirectory() != null
            ? spec.tempDirectory()
            : Path.of(System.getProperty("java.io.tmpdir"));
    return ScratchDirectory.create(
        tmp,
        prefix,
        what,
        "a dedup",
        w -> {
          warnings.add(w);
          listener.warning(w);
        });
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
            .input("the keys seen before " + spec.seenBefore(), spec.seenBefore())
            .stateDirectory("the state directory " + spec.state(), spec.state())
            .output("the output " + spec.output(), spec.output())
            .output("the dropped file " + spec.dropped(), spec.dropped());
    if (spec.onBadRecord() instanceof BadRecordPolicy.Quarantine q) {
      guard.output("the quarantine file " + q.file(), q.file());
    }
    if (spec.window() != null
        && spec.window().late() instanceof WindowSpec.LatePolicy.SideOutput s) {
      guard.output("the late file " + s.file(), s.file());
    }
    guard.check();
  }

  /** The shared set's warnings are the job's: printed, and counted in its result. */
  private SharedSeenSet.Listener sharedListener() {
    return new SharedSeenSet.Listener() {
      @Override
      public void warning(String message) {
        warnings.add(message);
        listener.warning(message);
      }

      @Override
      public void note(String message) {
        listener.note(message);
      }
    };
  }

  /**
   * What a job stopped by a shared set that forgot leaves behind: the set threw before any answer
   * decided after the loss reached the outputs.
   */
  private String afterSharedSetLost() {
    String nothingWritten = "idem stopped before writing any record decided after the loss";
    if (spec.state() == null) {
      return nothingWritten
          + "; the output so far has no repeats, but a job without --state "
          + "cannot resume.";
    }
    return nothingWritten
        + "; the last checkpoint in "
        + spec.state()
        + " is intact: restore "
        + "the server's data (from a replica or backup) and rerun the same command to resume. "
        + "If the data is lost for good, the keys emitted before cannot be told from new ones: "
        + "start every worker over with new --state directories and a new ?prefix= "
        + "(docs/SCALING.md).";
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
    o.warnings().forEach(listener::warning);
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

  private Setup tieredSetup(
      Manifest manifest,
      RestoredTiers tiers,
      StateDirectory dir,
      Fingerprinter fingerprinter,
      long snapshotSequence,
      long deltaSequence,
      RestoreCost restore) {
    Deduplicator dedup =
        TierAssembly.assemble(
            tiers.filter,
            tiers.exact,
            fingerprinter,
            spec.mode(),
            spec.keyMode(),
            spec.recentCacheSize());
    Judge judge =
        new TieredJudge(
            dedup,
            dir,
            manifest.writesSeen(),
            snapshotSequence,
            deltaSequence,
            tiers.restore.journalReplayed(),
            crash,
            stripeWorkers(manifest, tiers.filter));
    return new Setup(judge, manifest, manifest.exactTier(), tiers.filter, restore);
  }

  /**
   * Threads for a striped exact set alone, when the job has more than one to give it and judges
   * nothing but the set (a shard or earlier jobs' keys are checked record by record).
   */
  private StripeWorkers stripeWorkers(Manifest manifest, MembershipFilter filter) {
    if (spec.threads() < 2
        || !RestoredTiers.setAlone(manifest)
        || !(filter instanceof StripedFingerprintSet set)
        || spec.shard() != null
        || spec.seenBefore() != null) {
      return null;
    }
    return new StripeWorkers(set, Math.min(spec.threads(), set.stripes()));
  }

  private Setup windowSetup(
      Manifest manifest, StateStore store, Checkpoint cp, Fingerprinter fingerprinter) {
    WindowSpec w = spec.window();
    WindowedDeduplicator.Builder b =
        WindowedDeduplicator.builder()
            .fingerprinter(fingerprinter)
            .maxDelay(w.maxDelay())
            .allowedLateness(w.allowedLateness());
    b = w.kind() == WindowKind.TUMBLING ? b.tumbling(w.size()) : b.sliding(w.size());
    if (store != null) {
      b.trackChanges();
    }
    WindowedDeduplicator windows = b.build();
    if (store != null) {
      WindowJudge.restore(windows, store, cp.window());
    }
    Judge judge =
        new WindowJudge(
            windows, w.timeField() == null, cp.window() == null ? null : cp.window().stats());
    return new Setup(judge, manifest, ExactTierPlacement.NONE, null, RestoreCost.NONE);
  }

  /** Reads the records from the start position: a source, then the outputs ({@link #process}). */
  private JobResult read(
      List<InputFile> inputs,
      RecordSource.Settings settings,
      Setup setup,
      StateDirectory dir,
      StateStore store,
      Checkpoint start,
      long started)
      throws IOException {
    boolean durable = dir != null;
    long restoreMillis = (System.nanoTime() - started) / 1_000_000;
    try (RecordSource source =
        durable
            ? RecordSource.tracking(
                inputs,
                settings,
                start.fileIndex(),
                start.offset(),
                start.line(),
                start.read(),
                verifyStart)
            : new RecordSource(
                inputs, settings, stdin, start.fileIndex(), start.offset(), start.line())) {
      reachStart(source);
      return process(inputs, source, setup, dir, store, start, started, restoreMillis);
    }
  }

  /**
   * Fails a new job whose first record is bad under {@code --on-bad-record fail} (a wrong key, most
   * likely) before anything is written: its outputs, opened and locked but not yet emptied, are
   * left as they were ({@link OutputFile#abandonUnwritten}).
   */
  private void refuseFirstBadRecord(
      RecordBatch batch, Checkpoint start, List<InputFile> inputs, OutputFile... outputs)
      throws IOException {
    if (start.records() > 0 || !(spec.onBadRecord() instanceof BadRecordPolicy.Fail)) {
      return;
    }
    for (int i = 0; i < batch.count; i++) {
      byte kind = batch.kind[i];
      if (kind == RecordBatch.OK) {
        return;
      }
      if (kind != RecordBatch.BLANK && kind != RecordBatch.HEADER) {
        for (OutputFile o : outputs) {
          if (o != null) {
            o.abandonUnwritten();
          }
        }
        throw BadRecordException.beforeAnyKey(
            inputs.get(batch.fileIndex[i]).path(), batch.line[i], batch.problem[i]);
      }
    }
  }

  private JobResult process(
      List<InputFile> inputs,
      RecordSource source,
      Setup setup,
      StateDirectory dir,
      StateStore store,
      Checkpoint start,
      long started,
      long restoreMillis)
      throws IOException {
    Judge judge = setup.judge();
    Path quarantinePath =
        spec.onBadRecord() instanceof BadRecordPolicy.Quarantine q ? q.file() : null;
    Path latePath =
        spec.window() != null && spec.window().late() instanceof WindowSpec.LatePolicy.SideOutput s
            ? s.file()
            : null;
    boolean sameQuarantine = quarantinePath != null && sameFile(start.quarantine(), quarantinePath);
    boolean sameLate =
        latePath != null && start.window() != null && sameFile(start.window().lateFile(), latePath);
    try (OutputFile out =
            spec.output() != null
                ? OutputFile.open(spec.output(), start.outputBytes(), start.tail(Checkpoint.OUTPUT))
                : OutputFile.stream("<stdout>", stdout);
        OutputFile dropped =
            spec.dropped() != null
                ? OutputFile.open(
                    spec.dropped(), start.droppedBytes(), start.tail(Checkpoint.DROPPED))
                : null;
        OutputFile quarantine =
            quarantinePath == null
                ? null
                : sameQuarantine
                    ? OutputFile.open(
                        quarantinePath, start.quarantineBytes(), start.tail(Checkpoint.QUARANTINE))
                    : OutputFile.open(quarantinePath);
        ReasonsFile reasons =
            quarantinePath == null
                ? null
                : ReasonsFile.open(
                    quarantinePath, sameQuarantine, inputs, start.fileIndex(), start.line());
        OutputFile late =
            latePath == null
                ? null
                : sameLate
                    ? OutputFile.open(
                        latePath, start.window().lateBytes(), start.tail(Checkpoint.LATE))
                    : OutputFile.open(latePath)) {
      crash.reached(DedupStep.OUTPUTS_CUT);
      RecordBatch first = source.next();
      refuseFirstBadRecord(first, start, inputs, out, dropped, quarantine, late);
      JobProgress p =
          new JobProgress(
              start,
              judge,
              new JobProgress.Outputs(
                  out,
                  dropped,
                  quarantine,
                  late,
                  quarantinePath,
                  latePath,
                  reasons == null ? null : reasons.file()),
              source.reads(),
              crash,
              crash == CrashPoints.NONE); // crash points count on checkpoints at fixed counts
      try (p) { // before the outputs close: a checkpoint in flight finishes first
        return loop(p, inputs, source, first, setup, store, dir, start, started, restoreMillis);
      }
    }
  }

  /** The job's loop over the batches, and its last checkpoint. */
  private JobResult loop(
      JobProgress p,
      List<InputFile> inputs,
      RecordSource source,
      RecordBatch first,
      Setup setup,
      StateStore store,
      StateDirectory dir,
      Checkpoint start,
      long started,
      long restoreMillis)
      throws IOException {
    Judge judge = setup.judge();
    boolean durable = dir != null;
    ShardSpec shard = spec.shard();
    long otherShards = 0;
    OutputFile out = p.outputs.out();
    long firstRecordMillis = -1;
    long totalBytes = bytesBefore(inputs, inputs.size());
    long before = bytesBefore(inputs, start.fileIndex());
    // a resume inside an input: what the source read to get there, as stored, counts as done
    long startDone = before + (start.offset() == 0 ? 0 : source.rawBytesRead());
    listener.progress(Math.min(startDone, totalBytes), totalBytes, p.records, p.kept());
    long lastProgress = System.nanoTime();
    RecordBatch next = first;
    while (true) {
      RecordBatch batch = next != null ? next : source.next();
      next = null;
      if (firstRecordMillis < 0) {
        firstRecordMillis = (System.nanoTime() - started) / 1_000_000;
      }
      judge.prepare(batch);
      for (int i = 0; i < batch.count; i++) {
        String name = inputs.get(batch.fileIndex[i]).path();
        switch (batch.kind[i]) {
          case RecordBatch.OK -> {
            if (shard != null
                && !shard.owns(batch.fingerprints[2 * i], batch.fingerprints[2 * i + 1])) {
              otherShards++;
            } else {
              p.records++;
              handle(judge.judge(batch, i), batch, i, name, p.outputs);
            }
          }
          case RecordBatch.BLANK -> p.blankLines++;
          case RecordBatch.HEADER -> out.writeRecord(batch, i);
          default -> {
            p.records++;
            p.badRecords++;
            handleBad(batch, i, name, p, store, dir);
          }
        }
        p.position(batch, i);
        crash.reached(DedupStep.RECORD_HANDLED);
        boolean betweenRecords = !judge.decidesAhead() || i == batch.count - 1;
        if (durable && betweenRecords && p.checkpointDue(spec)) {
          p.checkpoint(false, store, false); // finished in the background
        }
      }
      boolean end = batch.endOfInput;
      source.recycle(batch);
      if (durable) {
        p.outputs.out().syncAhead();
        if (p.outputs.dropped() != null) {
          p.outputs.dropped().syncAhead();
        }
      }
      long now = System.nanoTime();
      if (now - lastProgress > PROGRESS_MILLIS * 1_000_000) {
        listener.progress(before + source.rawBytesRead(), totalBytes, p.records, p.kept());
        lastProgress = now;
      }
      if (end) {
        break;
      }
    }
    Checkpoint last;
    if (durable) {
      last = p.checkpoint(true, store, true);
    } else {
      out.flush();
      last = p.counts(true);
    }
    listener.progress(totalBytes, totalBytes, p.records, p.kept());
    if (shard != null) {
      listener.note(
          String.format(
              java.util.Locale.ROOT,
              "shard %s: %,d records owned by " + "other shards skipped in this run",
              shard.describe(),
              otherShards));
    }
    return result(last, start, false, setup, restoreMillis, started, firstRecordMillis);
  }

  /**
   * Waits for {@code source} to stand at the job's start position, reporting the {@link Step#CHECK}
   * of what a resumed job read before it.
   */
  private void reachStart(RecordSource source) throws IOException {
    StepProgress check = new StepProgress(listener, Step.CHECK, 0, source.startCheckBytes());
    try {
      while (!source.awaitStart(PROGRESS_MILLIS)) {
        check.at(source.startChecked());
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted");
    }
    check.end();
  }

  /** The stored bytes of the inputs before input {@code index}. */
  static long bytesBefore(List<InputFile> inputs, int index) {
    return inputs.subList(0, index).stream().mapToLong(f -> Math.max(0, f.size())).sum();
  }

  /** The outputs of a running job. */
  private void handle(Verdict verdict, RecordBatch batch, int i, String name, JobProgress.Outputs o)
      throws IOException {
    switch (verdict) {
      case KEPT -> o.out().writeRecord(batch, i);
      case DUPLICATE -> {
        if (o.dropped() != null) {
          byte[] file = name.getBytes(StandardCharsets.UTF_8); // a path's bytes, not its chars
          o.dropped().write(file, 0, file.length);
          byte[] where = ("\t" + batch.line[i] + "\t").getBytes(StandardCharsets.US_ASCII);
          o.dropped().write(where, 0, where.length);
          o.dropped().write(batch.arena, batch.start[i], batch.contentLength[i]);
          o.dropped().write((byte) '\n');
        }
      }
      case LATE -> {
        WindowSpec.LatePolicy policy = spec.window().late();
        if (policy instanceof WindowSpec.LatePolicy.Emit) {
          o.out().writeRecord(batch, i);
        } else if (policy instanceof WindowSpec.LatePolicy.SideOutput) {
          o.late().writeRecord(batch, i);
        }
      }
    }
  }

  private void handleBad(
      RecordBatch batch, int i, String name, JobProgress p, StateStore store, StateDirectory dir)
      throws IOException {
    BadRecordPolicy policy = spec.onBadRecord();
    if (policy instanceof BadRecordPolicy.Fail) {
      p.badRecords--; // not handled: a rerun will meet it again
      p.records--;
      if (dir != null) {
        p.checkpoint(false, store, true);
      } else {
        p.outputs.out().flush();
      }
      throw p.records == p.badRecords
          ? BadRecordException.beforeAnyKey(name, batch.line[i], batch.problem[i])
          : new BadRecordException(name, batch.line[i], batch.problem[i], dir != null);
    }
    if (policy instanceof BadRecordPolicy.Quarantine) {
      ReasonsFile.write(
          p.outputs.reasons(),
          name,
          batch.line[i],
          batch.tooLongToKeep(i)
              ? batch.problem[i] + " (too long to quarantine: not in the quarantine file)"
              : batch.problem[i]);
      if (batch.tooLongToKeep(i)) {
        String w =
            name
                + ":"
                + batch.line[i]
                + ": "
                + batch.problem[i]
                + "; too long to quarantine, counted as bad";
        warnings.add(w);
        listener.warning(w);
      } else {
        p.outputs.quarantine().writeRecord(batch, i);
      }
    }
  }

  private static boolean sameFile(String recorded, Path path) {
    return recorded != null && Path.of(recorded).equals(path.toAbsolutePath());
  }

  /**
   * @param cp the last checkpoint
   * @param start the checkpoint this run started from
   * @param complete whether the state was already complete (nothing was run)
   */
  private JobResult result(
      Checkpoint cp,
      Checkpoint start,
      boolean complete,
      Setup setup,
      long restoreMillis,
      long started,
      long firstRecordMillis) {
    Manifest m = setup.manifest();
    MembershipFilter filter = setup.filter();
    String filterText =
        RestoredTiers.setAlone(m) && filter != null
            ? "none: the exact set in memory answers alone, "
                + ByteSize.format((filter.bitSize() + 7) / 8)
                + " at capacity "
                + filter.capacity()
            : filter == null
                ? (m.window() != null
                    ? "none (windows)"
                    : m.exactTier().kind() == ExactTierPlacement.Kind.PARTITIONED
                        ? "none (the partitioned method works out every verdict first)"
                        : spec.shared() != null
                            ? "none (a local filter cannot know other workers' keys)"
                            : m.filterType().displayName())
                : filter.type().displayName()
                    + ", "
                    + ByteSize.format((filter.bitSize() + 7) / 8)
                    + ", "
                    + String.format(
                        java.util.Locale.ROOT,
                        "%.2f",
                        (double) filter.bitSize() / Math.max(1, filter.capacity()))
                    + " bits/key at capacity "
                    + filter.capacity();
    WindowStats window =
        setup.judge() instanceof WindowJudge w
            ? w.windowStats()
            : cp.window() == null ? null : cp.window().stats();
    return new JobResult(
        cp,
        complete,
        start.sequence() > 0,
        start.records(),
        m.mode(),
        setup.exactTier(),
        filterText,
        filter == null || RestoredTiers.setAlone(m)
            ? 0
            : filter.bitSize(), // a set alone is no filter
        restoreMillis,
        firstRecordMillis,
        (System.nanoTime() - started) / 1_000_000,
        setup.restore(),
        List.copyOf(warnings),
        window);
  }
}
