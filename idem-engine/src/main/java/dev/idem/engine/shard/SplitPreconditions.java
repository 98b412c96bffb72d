package dev.idem.engine.shard;

import dev.idem.engine.JobException;
import dev.idem.engine.output.OutputGuard;
import dev.idem.engine.records.BadRecordPolicy;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * What a split refuses before it writes anything, whoever calls it (the command or a library
 * caller): a directory that is a file, shard or quarantine files that are inputs or each other, and
 * a directory of shard files without a split's checkpoint.
 */
final class SplitPreconditions {
  private SplitPreconditions() {}

  /** The refusals before the directory is created. */
  static void check(SplitSpec spec, Path stateDir) throws IOException {
    if (Files.exists(spec.directory()) && !Files.isDirectory(spec.directory())) {
      throw new JobException(
          spec.directory() + " is a file; -o names the directory the shard " + "files go to");
    }
    refuseDestructivePaths(spec, stateDir);
  }

  /**
   * Refuses shard files and a quarantine file that are inputs or each other, before anything is
   * opened for writing: the same guard the command runs, for the library's callers.
   */
  private static void refuseDestructivePaths(SplitSpec spec, Path stateDir) throws IOException {
    OutputGuard guard =
        new OutputGuard()
            .inputs(spec.inputs())
            .stateDirectory("the split's state " + stateDir, stateDir);
    for (int i = 0; i < spec.ring().size(); i++) {
      Path shard =
          spec.directory().resolve(SplitJob.shardFileName(i, spec.format(), spec.compression()));
      guard.output("shard file " + shard, shard);
    }
    if (spec.onBadRecord() instanceof BadRecordPolicy.Quarantine q) {
      guard.output("the quarantine file " + q.file(), q.file());
    }
    guard.check();
  }

  /**
   * Refuses a directory that holds shard files but no checkpoint: someone else's shards, which a
   * new split would write over.
   */
  static void requireNoShardFiles(SplitSpec spec) throws IOException {
    try (var files = Files.list(spec.directory())) {
      List<String> shardFiles =
          files
              .map(p -> p.getFileName().toString())
              .filter(name -> name.startsWith("shard-"))
              .sorted()
              .toList();
      if (!shardFiles.isEmpty()) {
        throw new JobException(
            spec.directory()
                + " already holds shard files ("
                + shardFiles.get(0)
                + (shardFiles.size() > 1 ? ", ..." : "")
                + ") but no split "
                + "checkpoint: split into an empty directory");
      }
    }
  }
}
