package dev.idem.cli;

import dev.idem.engine.input.LineReader;
import dev.idem.engine.output.OutputGuard;
import dev.idem.engine.records.BadRecordPolicy;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Iterator;
import java.util.List;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.Option;
import picocli.CommandLine.TypeConversionException;

/**
 * What a bad record is and what becomes of it: the options of every command that reads records to
 * write them ({@code dedup}, {@code sort-dedup}, {@code split}). A picocli mixin. When each command
 * stops on one under {@code fail} differs: its exit status list says.
 */
final class BadRecordOptions {

  /** The default {@code --max-record-bytes}, for commands that read records without it. */
  static final int DEFAULT_MAX_RECORD_BYTES = 16 << 20;

  @Option(
      names = "--on-bad-record",
      paramLabel = "POLICY",
      defaultValue = "fail",
      converter = PolicyConverter.class,
      completionCandidates = PolicyConverter.class,
      description =
          "A record that is not valid or has no key: fail (exit 1 naming file, line "
              + "and reason), skip, or quarantine=FILE: the record as read to FILE (and, for "
              + "dedup, its input, line and reason to FILE.reasons.tsv) (default: "
              + "${DEFAULT-VALUE}). All are counted.")
  BadRecordPolicy policy;

  @Option(
      names = "--max-record-bytes",
      paramLabel = "SIZE",
      defaultValue = "16m",
      converter = SizeConverter.class,
      description =
          "Longer records are bad records, however long (default: ${DEFAULT-VALUE}, "
              + "at most 64m).")
  long maxRecordBytes;

  /**
   * {@code --max-record-bytes} as the readers take it. The cap is not about long lines, which are
   * streamed past at any length, but about the records kept: each is held whole, in a buffer and in
   * a batch or the sort buffer, so a limit of gigabytes would fail later as an out-of-memory.
   *
   * @throws IllegalArgumentException above the cap, saying why there is one
   */
  int maxRecordBytes() {
    if (maxRecordBytes > LineReader.MAX_LINE_BYTES) {
      throw new IllegalArgumentException(
          "--max-record-bytes can be at most 64m: records are "
              + "held whole in memory; longer ones are bad records (see --on-bad-record)");
    }
    return (int) maxRecordBytes;
  }

  /** Adds the quarantine file, if there is one, to the files a command writes. */
  void addQuarantineTo(OutputGuard guard) throws IOException {
    if (policy instanceof BadRecordPolicy.Quarantine q) {
      guard.output("--on-bad-record quarantine=" + q.file(), q.file());
    }
  }

  /**
   * Adds the quarantine file's reasons, {@code FILE.reasons.tsv}, if there is a quarantine file:
   * for {@code dedup}, which writes them.
   */
  void addQuarantineReasonsTo(OutputGuard guard) throws IOException {
    if (policy instanceof BadRecordPolicy.Quarantine q) {
      Path reasons = q.file().resolveSibling(q.file().getFileName() + ".reasons.tsv");
      guard.output("--on-bad-record quarantine=" + q.file() + " (its " + reasons + ")", reasons);
    }
  }

  /** {@code fail}, {@code skip} or {@code quarantine=FILE}, as the engine parses it. */
  static final class PolicyConverter implements ITypeConverter<BadRecordPolicy>, Iterable<String> {

    /** The words for shell completion. */
    @Override
    public Iterator<String> iterator() {
      return List.of("fail", "skip", "quarantine=").iterator();
    }

    @Override
    public BadRecordPolicy convert(String value) {
      try {
        return BadRecordPolicy.parse(value);
      } catch (IllegalArgumentException e) {
        throw new TypeConversionException(e.getMessage());
      }
    }
  }
}
