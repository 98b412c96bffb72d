package dev.idem.engine.corpus;

import dev.idem.engine.input.InputFile;
import dev.idem.engine.output.OutputFile;
import dev.idem.engine.output.OutputGuard;
import dev.idem.engine.records.BadRecordPolicy;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;

/**
 * What a corpus job refuses before it opens anything, whoever calls it (the command or a library
 * caller): an output in a directory that does not exist, outputs that would overwrite an input, the
 * state or each other, and inputs that cannot be read again when a state asks for a resume.
 */
final class CorpusPreconditions {
  private CorpusPreconditions() {}

  static void check(CorpusSpec spec, List<InputFile> inputs) throws IOException {
    for (Path p : new Path[] {spec.output(), spec.dropped(), spec.annotate()}) {
      if (p != null) {
        OutputFile.requireDirectory(p);
      }
    }
    refuseDestructivePaths(spec);
    if (spec.state() != null) {
      InputFile.requireFiles(inputs, "a job with --state reads its inputs again when it resumes");
    }
  }

  /**
   * Refuses outputs that are inputs, lie in the state directory or are each other, before anything
   * is opened for writing: the same guard the command runs, for the library's callers.
   */
  private static void refuseDestructivePaths(CorpusSpec spec) throws IOException {
    OutputGuard guard =
        new OutputGuard()
            .resumable(spec.state() != null)
            .inputs(spec.inputs())
            .inputs(spec.against())
            .stateDirectory("the state directory " + spec.state(), spec.state())
            .output("the output " + spec.output(), spec.output())
            .output("the dropped file " + spec.dropped(), spec.dropped())
            .output("the annotation file " + spec.annotate(), spec.annotate());
    if (spec.onBadRecord() instanceof BadRecordPolicy.Quarantine q) {
      guard.output("the quarantine file " + q.file(), q.file());
    }
    guard.check();
  }
}
