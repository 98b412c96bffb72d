package dev.idem.engine.job;

import static java.util.Objects.requireNonNull;

import dev.idem.core.KeyNormalizer;
import dev.idem.core.filter.FilterType;
import dev.idem.core.shared.SharedSeenSet;
import dev.idem.engine.DedupMode;
import dev.idem.engine.ExpectedKeys;
import dev.idem.engine.KeyMode;
import dev.idem.engine.input.LineReader;
import dev.idem.engine.records.BadRecordPolicy;
import dev.idem.engine.records.KeySpec;
import dev.idem.engine.records.RecordFormat;
import dev.idem.engine.records.VerifyInputs;
import dev.idem.engine.shard.ShardSpec;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Locale;

/**
 * Everything a dedup job is told; {@link #builder} sets it option by option, with the command's
 * defaults.
 *
 * <p>Why it is long: thirty options, each with its Javadoc, and the builder with a checking setter
 * for each of them.
 *
 * @param inputs files, directories, globs or {@code -}, as given
 * @param format record layout
 * @param key what identifies a record
 * @param header whether CSV/TSV inputs start with a header line
 * @param normalizer applied to keys before hashing
 * @param mode exact or approximate
 * @param keyMode what the exact tier stores
 * @param filterType the filter, or {@code null} for the default (blocked, or scalable when the key
 *     count is not given)
 * @param expectedKeys distinct keys expected: a count, unknown (a scalable filter, sized from a
 *     guess of the records), or estimated by reading the inputs once before the job
 * @param fpp the filter's false-positive rate
 * @param seed hash seed
 * @param exactTier where the exact tier is asked to live
 * @param state the state directory, or {@code null} for a job that cannot be resumed
 * @param checkpointRecords records between checkpoints
 * @param checkpointInterval time between checkpoints
 * @param output the output file, or {@code null} for standard output
 * @param dropped where to write the duplicates removed, or {@code null}
 * @param onBadRecord what to do with records without a usable key
 * @param maxRecordBytes longer records are bad records
 * @param recentCacheSize fingerprints in the recent tier (0: none)
 * @param rocksDbCacheBytes RocksDB block cache
 * @param window the windowed form ("seen in the last W"), or {@code null} for "ever seen"
 * @param shard the keys this job owns (the others are skipped), or {@code null} for all
 * @param shared an exact seen-set shared with other workers (e.g. Redis) instead of local tiers, or
 *     {@code null}
 * @param seenBefore a snapshot of keys earlier jobs kept (e.g. from {@code idem reshard}): they are
 *     duplicates here; or {@code null}
 * @param verifyInputs how a resume checks that the inputs still hold what the job read
 * @param threads threads that judge records (the exact set in memory; other tiers judge on one), or
 *     0 for one per available core; the output is the same for any number
 * @param memory the heap bytes the job may plan for (its exact set, or the partitioned method's
 *     partitions), or 0 for the JVM's heap limit; never more than that limit
 * @param tempDirectory where a job without a state directory writes the partitioned method's files,
 *     or {@code null} for the system's temporary directory
 * @param history a history of earlier runs' keys ({@code --history DIR}, docs/HISTORY.md): the
 *     records are deduplicated against every key an earlier completed run kept, and this run's kept
 *     keys join it with its output; or {@code null}
 */
public record DedupJobSpec(
    List<String> inputs,
    RecordFormat format,
    KeySpec key,
    boolean header,
    KeyNormalizer normalizer,
    DedupMode mode,
    KeyMode keyMode,
    FilterType filterType,
    ExpectedKeys expectedKeys,
    double fpp,
    long seed,
    ExactTierChoice exactTier,
    Path state,
    long checkpointRecords,
    Duration checkpointInterval,
    Path output,
    Path dropped,
    BadRecordPolicy onBadRecord,
    int maxRecordBytes,
    long recentCacheSize,
    long rocksDbCacheBytes,
    WindowSpec window,
    ShardSpec shard,
    SharedSeenSet.Opener shared,
    Path seenBefore,
    VerifyInputs verifyInputs,
    int threads,
    long memory,
    Path tempDirectory,
    Path history) {

  /**
   * Threads for parsing and judging on a machine of {@code cores}: all but two, which the reading
   * thread, the writing (judging) thread and the checkpoint thread share. On two cores, where the
   * reader and the writer already keep both busy, more threads only added work (docs/BENCHMARKS.md,
   * Part B).
   */
  public static int defaultThreads(int cores) {
    return Math.max(1, cores - 2);
  }

  /** Checks the options that depend on each other; {@link Builder}'s setters check the rest. */
  public DedupJobSpec {
    inputs = List.copyOf(inputs);
    if (verifyInputs == null) {
      verifyInputs = VerifyInputs.SAMPLE;
    }
    if (inputs.isEmpty()) {
      throw new IllegalArgumentException("at least one input is needed ('-' for standard input)");
    }
    if (keyMode == KeyMode.FULL_KEY && mode == DedupMode.APPROXIMATE) {
      throw new IllegalArgumentException(
          "full keys (--key-mode full) are kept by the exact "
              + "tier, which approximate mode (--mode approximate) does without; choose one");
    }
    if (threads == 0) {
      threads = defaultThreads(Runtime.getRuntime().availableProcessors());
    }
  }

  /**
   * A builder for a job over {@code inputs} (files, directories, globs or {@code -} for standard
   * input), every option at the {@code idem dedup} command's default until set: whole lines as
   * keys, exact, no state, output to standard output.
   */
  public static Builder builder(List<String> inputs) {
    return new Builder(inputs);
  }

  /**
   * Builds a {@link DedupJobSpec}. Each setter checks its value as it is set; {@link #build} checks
   * the options that depend on each other.
   */
  public static final class Builder {
    private final List<String> inputs;
    private RecordFormat format = RecordFormat.LINES;
    private KeySpec key = new KeySpec.WholeLine();
    private boolean header;
    private KeyNormalizer normalizer = KeyNormalizer.identity();
    private DedupMode mode = DedupMode.EXACT;
    private KeyMode keyMode = KeyMode.FINGERPRINT;
    private FilterType filterType;
    private ExpectedKeys expectedKeys = ExpectedKeys.UNKNOWN;
    private double fpp = 0.001;
    private long seed;
    private ExactTierChoice exactTier = ExactTierChoice.AUTO;
    private Path state;
    private long checkpointRecords = 100_000;
    private Duration checkpointInterval = Duration.ofSeconds(10);
    private Path output;
    private Path dropped;
    private BadRecordPolicy onBadRecord = new BadRecordPolicy.Fail();
    private int maxRecordBytes = 16 << 20;
    private long recentCacheSize;
    private long rocksDbCacheBytes = Math.max(64L << 20, Runtime.getRuntime().maxMemory() / 4);
    private WindowSpec window;
    private ShardSpec shard;
    private SharedSeenSet.Opener shared;
    private Path seenBefore;
    private VerifyInputs verifyInputs = VerifyInputs.SAMPLE;
    private int threads;
    private long memory;
    private Path tempDirectory;
    private Path history;

    private Builder(List<String> inputs) {
      this.inputs = List.copyOf(requireNonNull(inputs, "inputs"));
    }

    /** The record layout (default: lines). */
    public Builder format(RecordFormat format) {
      this.format = requireNonNull(format, "format");
      return this;
    }

    /** What identifies a record (default: the whole line). */
    public Builder key(KeySpec key) {
      this.key = requireNonNull(key, "key");
      return this;
    }

    /** Whether CSV/TSV inputs start with a header line (default: no). */
    public Builder header(boolean header) {
      this.header = header;
      return this;
    }

    /** Applied to keys before hashing (default: none). */
    public Builder normalizer(KeyNormalizer normalizer) {
      this.normalizer = requireNonNull(normalizer, "normalizer");
      return this;
    }

    /** Exact or approximate (default: exact). */
    public Builder mode(DedupMode mode) {
      this.mode = requireNonNull(mode, "mode");
      return this;
    }

    /** What the exact tier stores (default: 128-bit fingerprints). */
    public Builder keyMode(KeyMode keyMode) {
      this.keyMode = requireNonNull(keyMode, "keyMode");
      return this;
    }

    /** The filter; {@code null} (the default) lets the job choose. */
    public Builder filterType(FilterType filterType) {
      this.filterType = filterType;
      return this;
    }

    /** Distinct keys expected (default: unknown; the filter grows). */
    public Builder expectedKeys(ExpectedKeys expectedKeys) {
      this.expectedKeys = requireNonNull(expectedKeys, "expectedKeys");
      return this;
    }

    /** The filter's false-positive rate, above 0 and below 1 (default 0.001). */
    public Builder fpp(double fpp) {
      checkArgument(
          fpp > 0 && fpp < 1, "the false-positive rate must be above 0 and below 1, got %s", fpp);
      this.fpp = fpp;
      return this;
    }

    /** The hash seed (default 0); a resumed job must use the one it started with. */
    public Builder seed(long seed) {
      this.seed = seed;
      return this;
    }

    /** Where the exact tier is asked to live (default: chosen from the keys and the memory). */
    public Builder exactTier(ExactTierChoice exactTier) {
      this.exactTier = requireNonNull(exactTier, "exactTier");
      return this;
    }

    /** The state directory that makes the job resumable (default: none); needs an output file. */
    public Builder state(Path state) {
      this.state = state;
      return this;
    }

    /** Records between checkpoints, at least 1 (default 100,000). */
    public Builder checkpointRecords(long checkpointRecords) {
      checkArgument(
          checkpointRecords >= 1,
          "checkpoints need at least 1 record between them, got %s",
          checkpointRecords);
      this.checkpointRecords = checkpointRecords;
      return this;
    }

    /** Longest time between checkpoints, positive (default 10 s). */
    public Builder checkpointInterval(Duration checkpointInterval) {
      checkArgument(
          checkpointInterval != null && checkpointInterval.compareTo(Duration.ZERO) > 0,
          "the time between checkpoints must be positive, got %s",
          checkpointInterval);
      this.checkpointInterval = checkpointInterval;
      return this;
    }

    /** The output file (default: {@code null}, standard output). */
    public Builder output(Path output) {
      this.output = output;
      return this;
    }

    /** Where to write the duplicates removed (default: nowhere). */
    public Builder dropped(Path dropped) {
      this.dropped = dropped;
      return this;
    }

    /** What to do with a record without a usable key (default: fail). */
    public Builder onBadRecord(BadRecordPolicy onBadRecord) {
      this.onBadRecord = requireNonNull(onBadRecord, "onBadRecord");
      return this;
    }

    /** Longer records are bad records, 1 byte to 64 MiB (default 16 MiB). */
    public Builder maxRecordBytes(int maxRecordBytes) {
      this.maxRecordBytes = LineReader.checkMaxRecordBytes(maxRecordBytes);
      return this;
    }

    /** Fingerprints in the recent tier, 0 for none (the default). */
    public Builder recentCacheSize(long recentCacheSize) {
      checkArgument(
          recentCacheSize >= 0,
          "the recent tier holds 0 (off) or more keys, got %s",
          recentCacheSize);
      this.recentCacheSize = recentCacheSize;
      return this;
    }

    /**
     * RocksDB's block cache, outside the heap (default: a quarter of the heap limit, at least 64
     * MiB).
     */
    public Builder rocksDbCacheBytes(long rocksDbCacheBytes) {
      checkArgument(
          rocksDbCacheBytes > 0, "the RocksDB cache must be positive, got %s", rocksDbCacheBytes);
      this.rocksDbCacheBytes = rocksDbCacheBytes;
      return this;
    }

    /** The windowed form ("seen in the last W"); {@code null} (the default) for "ever seen". */
    public Builder window(WindowSpec window) {
      this.window = window;
      return this;
    }

    /** The keys this job owns, the others skipped; {@code null} (the default) for all. */
    public Builder shard(ShardSpec shard) {
      this.shard = shard;
      return this;
    }

    /** An exact seen-set shared with other workers instead of local tiers (default: none). */
    public Builder shared(SharedSeenSet.Opener shared) {
      this.shared = shared;
      return this;
    }

    /** A snapshot of keys earlier jobs kept, duplicates here (default: none). */
    public Builder seenBefore(Path seenBefore) {
      this.seenBefore = seenBefore;
      return this;
    }

    /** How a resume checks that the inputs still hold what the job read (default: sampled). */
    public Builder verifyInputs(VerifyInputs verifyInputs) {
      this.verifyInputs = requireNonNull(verifyInputs, "verifyInputs");
      return this;
    }

    /** Threads that judge records, 0 (the default) for all but two of the cores, at least one. */
    public Builder threads(int threads) {
      checkArgument(threads >= 0, "threads must be at least 1 (0: one per core), got %s", threads);
      this.threads = threads;
      return this;
    }

    /** The heap bytes the job may plan for, 0 (the default) for the heap limit. */
    public Builder memory(long memory) {
      checkArgument(memory >= 0, "memory must be positive (0: the heap limit), got %s", memory);
      this.memory = memory;
      return this;
    }

    /** Where a job without state writes its temporary files (default: the system's). */
    public Builder tempDirectory(Path tempDirectory) {
      this.tempDirectory = tempDirectory;
      return this;
    }

    /** A history of earlier runs' keys to dedup against and join (default: none). */
    public Builder history(Path history) {
      this.history = history;
      return this;
    }

    /**
     * The spec.
     *
     * @throws IllegalArgumentException when options set do not go together
     */
    public DedupJobSpec build() {
      return new DedupJobSpec(
          inputs,
          format,
          key,
          header,
          normalizer,
          mode,
          keyMode,
          filterType,
          expectedKeys,
          fpp,
          seed,
          exactTier,
          state,
          checkpointRecords,
          checkpointInterval,
          output,
          dropped,
          onBadRecord,
          maxRecordBytes,
          recentCacheSize,
          rocksDbCacheBytes,
          window,
          shard,
          shared,
          seenBefore,
          verifyInputs,
          threads,
          memory,
          tempDirectory,
          history);
    }

    private static void checkArgument(boolean ok, String message, Object value) {
      if (!ok) {
        throw new IllegalArgumentException(String.format(Locale.ROOT, message, value));
      }
    }
  }
}
