package dev.idem.engine.job;

import dev.idem.core.Fingerprinter;
import dev.idem.core.filter.Filters;
import dev.idem.core.filter.MembershipFilter;
import dev.idem.core.filter.StripedFingerprintSet;
import dev.idem.core.shared.SharedSeenSet;
import dev.idem.core.window.WindowKind;
import dev.idem.engine.Closer;
import dev.idem.engine.Deduplicator;
import dev.idem.engine.ExpectedKeys;
import dev.idem.engine.KeyMode;
import dev.idem.engine.estimate.InputEstimate;
import dev.idem.engine.input.InputFile;
import dev.idem.engine.output.ScratchDirectory;
import dev.idem.engine.partition.DuplicateBits;
import dev.idem.engine.partition.PartitionedPlan;
import dev.idem.engine.plan.JobMemory;
import dev.idem.engine.records.RecordSource;
import dev.idem.engine.run.CrashPoints;
import dev.idem.engine.run.JobListener;
import dev.idem.engine.run.JobWarnings;
import dev.idem.engine.run.StateDirectory;
import dev.idem.engine.state.Checkpoint;
import dev.idem.engine.state.ExactTierPlacement;
import dev.idem.engine.state.Manifest;
import dev.idem.engine.store.ExactTier;
import dev.idem.engine.store.ExactTiers;
import dev.idem.engine.store.StateStore;
import dev.idem.engine.store.TierAssembly;
import dev.idem.engine.window.WindowedDeduplicator;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;

/**
 * Builds the {@link Judge} of a dedup job for the method its manifest names: a set shared with
 * other workers, time windows, the partitioned method, or the filter and exact tiers (restored from
 * a state directory, or new).
 */
final class JudgeAssembly {

  /**
   * The records whose keys the exact set in memory of a job on standard input alone is first sized
   * for, when {@code --expected} does not say: it grows from there.
   */
  static final long STDIN_SET_CAPACITY = 1 << 16;

  private final DedupJobSpec spec;
  private final JobListener listener;
  private final CrashPoints crash;
  private final JobWarnings warnings;

  JudgeAssembly(DedupJobSpec spec, JobListener listener, CrashPoints crash, JobWarnings warnings) {
    this.spec = spec;
    this.listener = listener;
    this.crash = crash;
    this.warnings = warnings;
  }

  /** An exact set shared with other workers (Redis): the job keeps no tiers of its own. */
  DedupSetup shared(Manifest manifest, StateDirectory dir, Checkpoint cp) throws IOException {
    String worker = JobStart.workerId(spec, manifest);
    SharedSeenSet.Start start =
        dir == null
            ? SharedSeenSet.Start.WITHOUT_STATE
            : cp.sequence() > 0 ? SharedSeenSet.Start.RESUMED : SharedSeenSet.Start.NEW;
    SharedSeenSet.Listener told =
        new SharedSeenSet.Listener() {
          @Override
          public void warning(String message) {
            warnings.add(message);
          }

          @Override
          public void note(String message) {
            listener.note(message);
          }
        };
    return new DedupSetup(
        new SharedJudge(spec.shared().open(worker, start, told), worker),
        manifest,
        manifest.exactTier(),
        null,
        RestoreCost.NONE);
  }

  /** Time windows ("seen in the last W"), restored from the store of a resumed job. */
  DedupSetup windowed(
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
    return new DedupSetup(judge, manifest, ExactTierPlacement.NONE, null, RestoreCost.NONE);
  }

  /**
   * The partitioned method: its plan ({@link PartitionedPlan}) in the state directory, or in a
   * temporary directory deleted at the end, then a judge that reads the plan's verdicts.
   */
  DedupSetup partitioned(
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
    return new DedupSetup(
        new PlannedJudge(bits, cp.records() - cp.badRecords()),
        manifest,
        manifest.exactTier(),
        null,
        RestoreCost.NONE);
  }

  /** Work that waits for the resume's input check and refuses the resume when it failed. */
  interface InputsChecked {
    void await() throws IOException;
  }

  /**
   * The tiers of a job with a state directory, as its last checkpoint left them; restored while the
   * inputs are checked, and used only once {@code inputsChecked} returned.
   */
  DedupSetup restored(
      StateDirectory dir,
      StateStore store,
      Checkpoint cp,
      Manifest manifest,
      Fingerprinter fingerprinter,
      RestoreClock clock,
      InputsChecked inputsChecked)
      throws IOException {
    RestoredTiers tiers =
        RestoredTiers.restore(
            dir, store, cp, manifest, fingerprinter, manifest.filterCapacity(), listener);
    inputsChecked.await();
    crash.reached(DedupStep.TIERS_RESTORED);
    // deltas the restore could not use go: a later delta must not find them among its levels
    long deltas = tiers.restore.deltaSequence();
    dir.deleteSnapshotsExcept(cp.snapshotSequence(), deltas);
    warnings.addAll(tiers.warnings);
    return tiered(
        manifest,
        tiers,
        dir,
        fingerprinter,
        cp.snapshotSequence(),
        deltas,
        clock.add(tiers.restore));
  }

  /** New tiers for a job without a state directory. */
  DedupSetup fresh(
      Manifest manifest,
      ExpectedKeys expected,
      List<InputFile> inputs,
      Fingerprinter fingerprinter,
      Closer closer)
      throws IOException {
    ExactTierPlacement exactTier = manifest.exactTier();
    long capacity = manifest.filterCapacity();
    boolean fullKeys = manifest.keyMode() == KeyMode.FULL_KEY;
    // standard input has no size to guess the keys from: an exact set in memory starts small
    // and grows, rather than take the guess's room for millions of keys (100 MiB for 47 KB)
    long setCapacity =
        exactTier.kind() == ExactTierPlacement.Kind.MEMORY
                && !expected.isKnown()
                && inputs.stream().allMatch(InputFile::isStdin)
            ? Math.min(capacity, STDIN_SET_CAPACITY)
            : capacity;
    boolean setAlone = RestoredTiers.setAlone(manifest);
    MembershipFilter filter =
        Filters.forKeys(
            manifest.filterType(),
            expected.countOr(-1),
            setAlone ? setCapacity : capacity,
            spec.fpp());
    ExactTier exact = null;
    if (setAlone) {
      // the filter is the exact set
    } else if (exactTier.kind() == ExactTierPlacement.Kind.MEMORY) {
      exact = ExactTiers.inMemory(setCapacity, fullKeys);
    } else if (exactTier.kind() == ExactTierPlacement.Kind.ROCKSDB) {
      ScratchDirectory ephemeral = scratch("idem-dedup-", "a RocksDB exact tier");
      closer.register(ephemeral::delete); // after the tier is closed
      exact = ExactTiers.inRocksDb(ephemeral.path(), spec.rocksDbCacheBytes(), fullKeys);
    }
    return tiered(
        manifest, RestoredTiers.fresh(filter, exact), null, fingerprinter, 0, 0, RestoreCost.NONE);
  }

  /** {@code setup}, with the keys earlier jobs kept ({@code --seen-before}) judged first. */
  DedupSetup withSeenBefore(DedupSetup setup, Fingerprinter fingerprinter) throws IOException {
    return setup.withJudge(
        new SeenBeforeJudge(setup.judge(), JobStart.seenBefore(spec, fingerprinter)));
  }

  private DedupSetup tiered(
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
    return new DedupSetup(judge, manifest, manifest.exactTier(), tiers.filter, restore);
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

  /**
   * A locked directory of this job's in {@code --tmp} (or the system's temporary directory),
   * removed at the end; what killed jobs left there is removed first ({@link ScratchDirectory}).
   */
  private ScratchDirectory scratch(String prefix, String what) throws IOException {
    Path tmp =
        spec.tempDirectory() != null
            ? spec.tempDirectory()
            : Path.of(System.getProperty("java.io.tmpdir"));
    return ScratchDirectory.create(tmp, prefix, what, "a dedup", warnings::add);
  }
}
