package dev.idem.cli;

import dev.idem.engine.records.VerifyInputs;
import picocli.CommandLine.Option;

/** {@code --verify-inputs}, for every command that resumes over files: a picocli mixin. */
final class VerifyInputsOption {

  @Option(
      names = "--verify-inputs",
      paramLabel = "HOW",
      defaultValue = "sample",
      converter = ChoiceConverter.Verify.class,
      completionCandidates = ChoiceConverter.Verify.class,
      description =
          "How a resumed job checks that its inputs still hold what it read of them "
              + "(docs/GUARANTEES.md): sample (the default): sizes, the first 64 KiB and up to 32 "
              + "sampled 4 KiB blocks of what was read; an input with a new modification time or "
              + "inode, and a compressed input being read, are checked in full. full: read "
              + "everything read so far again and compare its CRC32C. Any difference refuses the "
              + "resume.")
  VerifyInputs verifyInputs;
}
