package dev.idem.engine.job;

import dev.idem.engine.JobException;
import dev.idem.engine.KeyMode;
import dev.idem.engine.estimate.InputEstimate;
import dev.idem.engine.input.InputFile;
import dev.idem.engine.plan.JobMemory;
import dev.idem.engine.state.ExactTierPlacement;
import java.util.List;

/**
 * Where a dedup job is asked to keep its exact tier ({@code --exact-store}); {@link #place} decides
 * where it goes ({@link ExactTierPlacement}), for the memory the job may use.
 */
public enum ExactTierChoice {
  /**
   * In memory when the keys fit the memory comfortably; else partitioned when the job can read its
   * inputs twice and judges nothing but its exact set, else RocksDB.
   */
  AUTO,
  MEMORY,
  ROCKSDB,
  /** Partition files judged one at a time within the memory, then the records written. */
  PARTITIONED;

  /**
   * Where the exact tier goes. {@code --exact-store auto} keeps it in memory when the set and the
   * job's working heap fit in {@link #memory}, by the rule {@code idem plan} sizes its commands
   * with ({@link JobMemory}), so that a plan's budget given as {@code -Xmx} chooses the tier the
   * plan chose; else the partitioned method when the job allows it, else RocksDB.
   *
   * @param capacity the keys the set is sized for
   * @param guessed whether {@code capacity} was guessed from the inputs' size ({@link
   *     InputEstimate}) rather than given or estimated by reading them: more keys may come, and the
   *     set may have to double
   */
  static ExactTierPlacement place(
      DedupJobSpec spec, long capacity, boolean fullKeys, boolean guessed, List<InputFile> inputs)
      throws JobException {
    String noPartitions = whyNotPartitioned(spec, inputs);
    return switch (spec.exactTier()) {
      case MEMORY -> ExactTierPlacement.MEMORY;
      case ROCKSDB -> ExactTierPlacement.ROCKSDB;
      case PARTITIONED -> {
        if (noPartitions != null) {
          throw new JobException(
              "--exact-store partitioned reads the inputs twice and judges by the exact set "
                  + "alone, so it cannot be used "
                  + noPartitions
                  + "; use --exact-store rocksdb");
        }
        yield ExactTierPlacement.PARTITIONED;
      }
      case AUTO ->
          (fullKeys
                      ? JobMemory.fullKeyMemoryTier(capacity, guessed)
                      : JobMemory.memoryTier(capacity, guessed))
                  <= memory(spec)
              ? ExactTierPlacement.MEMORY
              : noPartitions == null ? ExactTierPlacement.PARTITIONED : ExactTierPlacement.ROCKSDB;
    };
  }

  /** Why this job cannot use the partitioned method, or {@code null} when it can. */
  private static String whyNotPartitioned(DedupJobSpec spec, List<InputFile> inputs) {
    if (inputs.stream().anyMatch(InputFile::isStream)) {
      return "on standard input or a pipe (it cannot be read twice)";
    }
    if (spec.keyMode() == KeyMode.FULL_KEY) {
      return "with --key-mode full";
    }
    if (spec.shard() != null) {
      return "with --shard";
    }
    if (spec.seenBefore() != null) {
      return "with --seen-before";
    }
    return null;
  }

  /** The heap the job may plan for: {@code --memory}, at most the JVM's heap limit. */
  static long memory(DedupJobSpec spec) {
    long limit = Runtime.getRuntime().maxMemory();
    return spec.memory() > 0 ? Math.min(spec.memory(), limit) : limit;
  }
}
