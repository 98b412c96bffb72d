package dev.idem.cli;

import dev.idem.engine.output.OutputGuard;
import dev.idem.engine.records.BadRecordException;
import dev.idem.engine.records.KeySpec;
import dev.idem.engine.records.RecordFormat;
import dev.idem.engine.sort.SortDedupJob;
import dev.idem.engine.sort.SortDedupResult;
import dev.idem.engine.sort.SortDedupSpec;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code idem sort-dedup}: exact dedup of inputs larger than memory, by external sort. */
@Command(
    name = "sort-dedup",
    footerHeading = "%nExamples:%n",
    footer = {
      "  # sorted and unique, like LC_ALL=C sort -u, within 64 MiB",
      "  idem sort-dedup --whole-line --order key --memory 64m -o sorted.txt urls.txt",
      "  # the last event of each id, resumable",
      "  idem sort-dedup --key id --keep last --state st-sort -o last.jsonl \\",
      "      examples/clicks.jsonl"
    },
    mixinStandardHelpOptions = true,
    versionProvider = IdemCommand.Version.class,
    sortOptions = false,
    description = {
      "Exact dedup of inputs larger than memory, within a fixed memory budget: write the first "
          + "(or last) record of each key, byte for byte as read, in input order (or grouped "
          + "by key).",
      "Records are read into a buffer of at most --memory, sorted by key, cleared of repeats "
          + "and written as compressed runs to --tmp; the runs are then merged, dropping "
          + "repeats across them, in as many passes as --memory allows. Nothing is approximate: "
          + "keys are compared by 128-bit fingerprint, or byte for byte with --exact-key. The "
          + "output is written only after all input is read. With --state DIR the job resumes "
          + "after a kill: finished runs and merges are kept, only the interrupted one is "
          + "redone. For the first record of each key in input order, 'idem dedup' (with "
          + "--memory when the keys do not fit) is usually faster.",
      ""
    },
    exitCodeListHeading = "%nExit status:%n",
    exitCodeList = {
      "0:done",
      "1:bad input under --on-bad-record fail (before any output is written), an unreadable "
          + "input, an unwritable output, or not enough room in --tmp",
      "2:usage error"
    })
final class SortDedupCommand implements Callable<Integer> {

  @Spec CommandSpec spec;

  @Mixin RecordOptions record;

  @Mixin VerifyInputsOption verify;

  @Option(
      names = "--exact-key",
      description =
          "Compare keys byte for byte (after --normalize) instead of by 128-bit "
              + "fingerprint; costs the key's bytes in memory and in --tmp. With --order key, the "
              + "output is in byte order of the keys, like LC_ALL=C sort.")
  boolean exactKey;

  @Option(
      names = "--memory",
      paramLabel = "SIZE",
      defaultValue = "64m",
      converter = SizeConverter.class,
      description =
          "Working memory: read buffers, the sort buffer and merge buffers, all "
              + "counted; the JVM needs about twice this plus its own baseline (default: "
              + "${DEFAULT-VALUE}; at least 1m). A record larger than the sort buffer is a run of "
              + "its own, held in memory beyond this while it is read and merged.")
  long memory;

  @Option(
      names = "--state",
      paramLabel = "DIR",
      description =
          "Make the job resumable: its sorted runs and checkpoints go to DIR instead of --tmp "
              + "(kept until the job is done); after a crash, run the same command again. "
              + "Needs -o and files as inputs. One process per DIR.")
  Path state;

  @Option(
      names = "--tmp",
      paramLabel = "DIR",
      description =
          "Where the sorted runs go, in a private subdirectory removed at the end "
              + "(also on failure and Ctrl-C; after a kill, by the next sort-dedup using DIR). "
              + "Needs about the input's size free, plus 24 bytes a record; checked first "
              + "(default: the system temporary directory).")
  Path tmp;

  @Option(
      names = "--compress-runs",
      paramLabel = "auto|lz4|none",
      defaultValue = "auto",
      converter = ChoiceConverter.RunCompression.class,
      completionCandidates = ChoiceConverter.RunCompression.class,
      description =
          "lz4: compress the records in the sorted runs; none: store them as they "
              + "are, which writes more to --tmp (up to about twice the input in input order) but "
              + "spends no CPU on compression (about a third of the job's CPU with LZ4); auto: none "
              + "when --tmp has that room with a quarter to spare, else lz4 (default: "
              + "${DEFAULT-VALUE}).")
  CompressRuns compressRuns;

  /** {@code --compress-runs}; the engine takes it as a Boolean, null for "decide by --tmp". */
  enum CompressRuns {
    AUTO(null),
    LZ4(true),
    NONE(false);

    final Boolean compress;

    CompressRuns(Boolean compress) {
      this.compress = compress;
    }
  }

  @Option(
      names = "--keep",
      paramLabel = "first|last",
      defaultValue = "first",
      converter = ChoiceConverter.Keep.class,
      completionCandidates = ChoiceConverter.Keep.class,
      description = "Which record of a key survives (default: ${DEFAULT-VALUE}).")
  SortDedupSpec.Keep keep;

  @Option(
      names = "--order",
      paramLabel = "input|key",
      defaultValue = "input",
      converter = ChoiceConverter.Order.class,
      completionCandidates = ChoiceConverter.Order.class,
      description =
          "input: survivors in the order they were read (default); key: grouped by "
              + "key, in 128-bit fingerprint order (byte order with --exact-key), one merge pass "
              + "fewer.")
  SortDedupSpec.Order order;

  @Mixin OutputOptions output;

  @Mixin BadRecordOptions badRecords;

  @Parameters(
      paramLabel = "INPUT",
      arity = "0..*",
      defaultValue = "-",
      description =
          "Files, directories (every file below, in path order), globs (** for any depth), or - for standard "
              + "input; none: standard input, as for sort and uniq. gzip, zstd, xz and bzip2 files are decompressed, "
              + "recognised by their content.")
  List<String> inputs;

  private final Io io;

  SortDedupCommand(Io io) {
    this.io = io;
  }

  @Override
  public Integer call() throws IOException {
    output.requireOneUseOfStandardOutput(spec.commandLine());
    SortDedupSpec jobSpec = jobSpec();
    SortDedupSummary summary =
        new SortDedupSummary(io, output, state != null ? state.resolve("runs") : tmp);
    if (jobSpec.state() != null) {
      Signals.whenStopped(
          () -> System.lineSeparator() + Signals.resumable("idem sort-dedup", jobSpec.state(), ""));
    }
    try {
      refuseDestructivePaths(jobSpec);
      Terminal.sayWhenReadingTheTerminal(io, "idem sort-dedup", inputs, "records");
      SortDedupResult result = SortDedupJob.run(jobSpec, io.in(), io.data(), summary.listener());
      summary.finish(result);
      return 0;
    } catch (BadRecordException e) {
      summary.abandon();
      throw new UserException(e.getMessage());
    } catch (IOException | RuntimeException e) {
      summary.abandon();
      throw e;
    }
  }

  /** Refuses outputs that are inputs or each other. */
  private void refuseDestructivePaths(SortDedupSpec s) throws IOException {
    OutputGuard guard =
        new OutputGuard()
            .resumable(s.state() != null)
            .inputs(s.inputs())
            .stateDirectory("--state " + s.state(), s.state());
    if (s.output() == null) {
      guard.standardOutput();
    }
    guard.output("-o " + s.output(), s.output());
    badRecords.addQuarantineTo(guard);
    guard.summary("--stats-json " + output.statsJson, output.statsFile()).check();
  }

  /** The job the options ask for; a usage error for options the spec refuses. */
  SortDedupSpec jobSpec() {
    try {
      KeySpec keySpec = record.keySpec();
      RecordFormat recordFormat = record.format(keySpec, inputs);
      boolean hasHeader = record.header(keySpec, recordFormat);
      if (record.isContent() && exactKey) {
        throw new IllegalArgumentException(
            "--content keys are documents: they are compared "
                + "by fingerprint; drop --exact-key");
      }
      return SortDedupSpec.builder(inputs, keySpec)
          .format(recordFormat)
          .header(hasHeader)
          .normalizer(record.normalizer())
          .exactKey(exactKey)
          .memoryBytes(memory)
          .tmp(tmp)
          .keep(keep)
          .order(order)
          .output(output.file())
          .onBadRecord(badRecords.policy)
          .maxRecordBytes(badRecords.maxRecordBytes())
          .compressRuns(compressRuns.compress)
          .state(state)
          .verifyInputs(verify.verifyInputs)
          .build();
    } catch (IllegalArgumentException e) {
      throw new ParameterException(spec.commandLine(), e.getMessage());
    }
  }
}
