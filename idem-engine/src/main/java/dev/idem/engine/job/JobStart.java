package dev.idem.engine.job;

import dev.idem.core.Fingerprinter;
import dev.idem.core.filter.FilterSnapshot;
import dev.idem.core.filter.FilterType;
import dev.idem.core.filter.Filters;
import dev.idem.core.filter.MembershipFilter;
import dev.idem.engine.DedupMode;
import dev.idem.engine.ExpectedKeys;
import dev.idem.engine.JobException;
import dev.idem.engine.KeyMode;
import dev.idem.engine.estimate.InputEstimate;
import dev.idem.engine.estimate.InputSurvey;
import dev.idem.engine.input.InputFile;
import dev.idem.engine.output.OutputFile;
import dev.idem.engine.run.JobListener;
import dev.idem.engine.run.StateDirectory;
import dev.idem.engine.state.ExactTierPlacement;
import dev.idem.engine.state.Manifest;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;

/**
 * What a dedup job resolves before it reads its first record, beyond its manifest: the key count to
 * size for ({@code --expected auto}), the keys seen before ({@code --seen-before}), and its name in
 * a shared seen-set.
 */
final class JobStart {

  private JobStart() {}

  /**
   * The manifest this command would write for a new job: its inputs and options, and the method
   * chosen for them (where the exact tier lives, the filter and its capacity).
   */
  static Manifest manifest(DedupJobSpec spec, List<InputFile> inputs, ExpectedKeys expected)
      throws IOException {
    boolean windowed = spec.window() != null;
    boolean fullKeys = spec.keyMode() == KeyMode.FULL_KEY;
    long capacity =
        windowed
            ? 0
            : expected.isKnown()
                ? expected.count()
                : InputEstimate.distinctKeysUpperBound(inputs, spec.format());
    ExactTierPlacement exactTier;
    if (spec.shared() != null) {
      exactTier = ExactTierPlacement.shared(spec.shared().describe());
    } else if (windowed || spec.mode() == DedupMode.APPROXIMATE) {
      exactTier = ExactTierPlacement.NONE;
    } else {
      exactTier = ExactTierChoice.place(spec, capacity, fullKeys, !expected.isKnown(), inputs);
    }
    // an exact set in memory needs no filter in front of it: it is the filter (see RestoredTiers)
    FilterType filterType;
    if (spec.filterType() != null) {
      filterType = spec.filterType();
    } else if (exactTier == ExactTierPlacement.MEMORY && !fullKeys) {
      filterType = FilterType.EXACT_STRIPED;
    } else {
      filterType = Filters.defaultType(expected.countOr(-1));
    }
    return new Manifest(
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
        spec.seenBefore() == null ? null : describeFile(spec.seenBefore()),
        spec.shared() == null || spec.state() == null ? null : newWorkerId(spec.state()));
  }

  /**
   * The distinct keys to size for: as given; for {@code --expected auto} the upper end of an
   * estimate from reading the inputs once (or, when resuming, the number the job started with, so a
   * resume does not read everything again); {@link ExpectedKeys#UNKNOWN} when not given.
   */
  static ExpectedKeys expectedKeys(DedupJobSpec spec, StateDirectory dir, JobListener listener)
      throws IOException {
    if (!spec.expectedKeys().equals(ExpectedKeys.ESTIMATE)) {
      return spec.expectedKeys();
    }
    Manifest existing = dir == null ? null : Manifest.read(dir.path());
    if (existing != null && existing.expectedKeys().isKnown()) {
      return existing.expectedKeys();
    }
    InputSurvey.Result survey =
        InputSurvey.run(
            spec.inputs(),
            spec.format(),
            spec.key(),
            spec.header(),
            spec.normalizer(),
            spec.maxRecordBytes(),
            Long.MAX_VALUE);
    long upper = Math.max(1, (long) Math.ceil(survey.whole().high()));
    listener.note(
        String.format(
            java.util.Locale.ROOT,
            "--expected auto: %,d records read, "
                + "about %,.0f distinct keys (99 %% interval up to %,d); the key tiers are sized for %,d",
            survey.records(),
            survey.whole().estimate(),
            upper,
            upper));
    return ExpectedKeys.of(upper);
  }

  /** The keys of {@code --seen-before}, which must be hashed as this job hashes. */
  static MembershipFilter seenBefore(DedupJobSpec spec, Fingerprinter fingerprinter)
      throws IOException {
    FilterSnapshot s;
    try {
      s = FilterSnapshot.read(spec.seenBefore());
    } catch (java.nio.file.NoSuchFileException e) {
      throw new JobException(spec.seenBefore() + ": no such file (--seen-before)");
    }
    if (s.filter().type() != FilterType.EXACT) {
      throw new JobException(
          spec.seenBefore()
              + ": a "
              + s.filter().type().displayName()
              + " filter; --seen-before takes an exact set (idem reshard, or filter build --type "
              + "exact), so that no new key is taken for seen");
    }
    if (!s.fingerprinter().equals(fingerprinter)) {
      throw new JobException(
          spec.seenBefore()
              + ": its keys were hashed as "
              + s.fingerprinter()
              + ", this job hashes as "
              + fingerprinter
              + " (--seed and --normalize must match)");
    }
    return s.filter();
  }

  static String describeFile(Path file) {
    try {
      return file.toAbsolutePath() + " (" + Files.size(file) + " bytes)";
    } catch (IOException e) {
      return file.toAbsolutePath().toString();
    }
  }

  /**
   * This worker's name in a shared seen-set: stable for the life of its state (so a resumed worker
   * knows its own marks, however its state directory is named), unique across workers; a job
   * without state gets a new one.
   */
  static String workerId(DedupJobSpec spec, Manifest manifest) {
    if (spec.state() == null) {
      return hash(java.util.UUID.randomUUID().toString());
    }
    if (manifest.worker() != null) {
      return manifest.worker();
    }
    // a state written before the manifest kept its worker: named as that idem named it
    return hash(spec.state().toAbsolutePath() + "@" + manifest.created());
  }

  /** A new worker's name, kept in its manifest: from its state directory's real path, and now. */
  static String newWorkerId(Path state) throws IOException {
    Files.createDirectories(state);
    return hash(state.toRealPath() + "@" + java.time.Instant.now() + "@" + System.nanoTime());
  }

  private static String hash(String identity) {
    return Long.toHexString(
        com.dynatrace.hash4j.hashing.Hashing.xxh3_64()
            .hashBytesToLong(identity.getBytes(java.nio.charset.StandardCharsets.UTF_8)));
  }
}
