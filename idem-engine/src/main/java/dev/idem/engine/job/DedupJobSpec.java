package dev.idem.engine.job;

import dev.idem.core.KeyNormalizer;
import dev.idem.core.filter.FilterType;
import dev.idem.core.shared.SharedSeenSet;
import dev.idem.engine.DedupMode;
import dev.idem.engine.ExpectedKeys;
import dev.idem.engine.KeyMode;
import dev.idem.engine.records.BadRecordPolicy;
import dev.idem.engine.records.KeySpec;
import dev.idem.engine.records.RecordFormat;
import dev.idem.engine.records.VerifyInputs;
import dev.idem.engine.shard.ShardSpec;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/**
 * Everything a dedup job is told.
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

  /** Where the exact tier lives. */
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
    if (threads < 0) {
      throw new IllegalArgumentException("threads must be at least 1 (0: one per core)");
    }
    if (threads == 0) {
      threads = defaultThreads(Runtime.getRuntime().availableProcessors());
    }
    if (memory < 0) {
      throw new IllegalArgumentException("memory must be positive (0: the heap limit)");
    }
    if (checkpointRecords < 1) {
      throw new IllegalArgumentException("checkpoints need at least 1 record between them");
    }
  }
}
