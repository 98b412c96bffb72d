package dev.idem.engine.job;

import dev.idem.engine.DedupMode;
import dev.idem.engine.ExpectedKeys;
import dev.idem.engine.JobException;
import dev.idem.engine.KeyMode;
import dev.idem.engine.output.OutputGuard;
import dev.idem.engine.records.BadRecordPolicy;
import java.io.IOException;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * What a dedup job refuses before it opens anything, whoever calls it (the command or a library
 * caller): options that do not go together, and outputs that would overwrite an input, the state or
 * each other.
 */
final class DedupPreconditions {
  private DedupPreconditions() {}

  static void check(DedupJobSpec spec) throws IOException {
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
    if (spec.history() != null) {
      refuseWithHistory(spec);
    }
    refuseDestructivePaths(spec);
  }

  /** What a run over a history cannot be combined with, each with the reason. */
  private static void refuseWithHistory(DedupJobSpec spec) throws JobException {
    Map<String, Boolean> refused = new LinkedHashMap<>();
    refused.put(
        "--state: the history is the run's state (the same command resumes it)",
        spec.state() != null);
    refused.put(
        "standard output: a resumed run cuts its output back to its last checkpoint; give -o FILE",
        spec.output() == null);
    refused.put(
        "--window: a history holds every key ever kept, not windows", spec.window() != null);
    refused.put("--shard", spec.shard() != null);
    refused.put("a Redis exact store: the history is the exact store", spec.shared() != null);
    refused.put(
        "--mode approximate: a history keeps its keys exactly",
        spec.mode() == DedupMode.APPROXIMATE);
    refused.put("--seen-before: the history is the keys seen before", spec.seenBefore() != null);
    refused.put(
        "--expected auto: give a count, or leave it out and the history's filter grows",
        spec.expectedKeys() == ExpectedKeys.ESTIMATE);
    for (Map.Entry<String, Boolean> e : refused.entrySet()) {
      if (e.getValue()) {
        throw new JobException("--history does not go with " + e.getKey());
      }
    }
  }

  /**
   * Refuses outputs that are inputs, lie in the state directory or are each other, before anything
   * is opened for writing: the same guard the command runs, for the library's callers.
   */
  private static void refuseDestructivePaths(DedupJobSpec spec) throws IOException {
    OutputGuard guard =
        new OutputGuard()
            .resumable(spec.state() != null || spec.history() != null)
            .inputs(spec.inputs())
            .input("the keys seen before " + spec.seenBefore(), spec.seenBefore())
            .stateDirectory("the state directory " + spec.state(), spec.state())
            .stateDirectory("the history " + spec.history(), spec.history())
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
}
