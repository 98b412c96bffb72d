package dev.idem.engine.sort;

import dev.idem.engine.output.OutputFile;
import dev.idem.engine.output.OutputGuard;
import dev.idem.engine.records.BadRecordPolicy;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * What a sort-dedup refuses before it reads anything, whoever calls it (the command or a library
 * caller): an output in a directory that does not exist, outputs that would overwrite an input, the
 * state or each other, and a {@code --tmp} that is not a directory.
 */
final class SortDedupPreconditions {
  private SortDedupPreconditions() {}

  /** The refusals, with {@code tmp} where the runs go when there is no state directory. */
  static void check(SortDedupSpec spec, Path tmp) throws IOException {
    if (spec.output() != null) {
      OutputFile.requireDirectory(spec.output()); // before the work, not after it
    }
    refuseDestructivePaths(spec);
    if (spec.state() == null && !Files.isDirectory(tmp)) {
      throw new IOException("--tmp " + tmp + ": no such directory");
    }
  }

  /**
   * Refuses outputs that are inputs, lie in the state directory or are each other, before anything
   * is opened for writing: the same guard the command runs, for the library's callers.
   */
  private static void refuseDestructivePaths(SortDedupSpec spec) throws IOException {
    OutputGuard guard =
        new OutputGuard()
            .resumable(spec.state() != null)
            .inputs(spec.inputs())
            .stateDirectory("the state directory " + spec.state(), spec.state())
            .output("the output " + spec.output(), spec.output());
    if (spec.onBadRecord() instanceof BadRecordPolicy.Quarantine q) {
      guard.output("the quarantine file " + q.file(), q.file());
    }
    guard.check();
  }
}
