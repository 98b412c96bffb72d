package dev.idem.cli;

import dev.idem.engine.input.Compression;
import dev.idem.engine.output.OutputGuard;
import dev.idem.engine.records.BadRecordException;
import dev.idem.engine.records.KeySpec;
import dev.idem.engine.records.RecordFormat;
import dev.idem.engine.shard.SplitJob;
import dev.idem.engine.shard.SplitSpec;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.stream.LongStream;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code idem split}: one shard file per ring node, each record to its key's owner. */
@Command(
    name = "split",
    footerHeading = "%nExamples:%n",
    footer = {
      "  # 4 shards by key (consistent hashing); each can be deduplicated alone",
      "  idem split --key id --shards 4 -o shards examples/clicks.jsonl",
      "  idem dedup --key id -o clean-0.jsonl shards/shard-00000.jsonl"
    },
    mixinStandardHelpOptions = true,
    versionProvider = IdemCommand.Version.class,
    sortOptions = false,
    description = {
      "Split inputs into shard files by key, with consistent hashing: DIR/shard-00000.jsonl, "
          + "... (in the input's format; .gz or .zst with --compress). Every record of a key lands in the "
          + "same shard, in input order, byte for byte, so 'idem dedup' can run on each shard "
          + "separately (on separate machines) and the union of the outputs equals one global "
          + "dedup.",
      "Resumable: killed at any moment, the same command continues where the last checkpoint "
          + "left off (the bookkeeping is in DIR/.idem-split/).",
      ""
    },
    exitCodeListHeading = "%nExit status:%n",
    exitCodeList = {
      "0:done (or already done)",
      "1:bad input under --on-bad-record fail (after a checkpoint; rerun with skip to go "
          + "on), an unreadable input or unwritable DIR",
      "2:usage error, or DIR holds another split"
    })
final class SplitCommand implements Callable<Integer> {

  @Spec CommandSpec spec;

  @Mixin RecordOptions record;

  @Option(
      names = "--shards",
      paramLabel = "N",
      description = "Number of shards (or give --ring-nodes).")
  Integer shards;

  @Mixin ShardOptions ring;

  @Option(
      names = {"-o", "--output"},
      paramLabel = "DIR",
      required = true,
      description = "Directory of the shard files (created if missing).")
  Path directory;

  @Option(
      names = "--compress",
      paramLabel = "CODEC",
      defaultValue = "none",
      converter = ChoiceConverter.FileCompression.class,
      completionCandidates = ChoiceConverter.FileCompression.class,
      description =
          "Shard files compressed: none, gzip (.gz) or zstd (.zst), one frame per checkpoint so "
              + "that a resumed split appends (default: ${DEFAULT-VALUE}).")
  Compression compression;

  @Option(names = "--gzip", description = "The same as --compress gzip.")
  boolean gzip;

  @Mixin BadRecordOptions badRecords;

  @Option(
      names = "--checkpoint-every",
      paramLabel = "N",
      defaultValue = "100000",
      converter = CountConverter.class,
      description = "Records between checkpoints (default: ${DEFAULT-VALUE}).")
  long checkpointEvery;

  @Mixin VerifyInputsOption verify;

  @Option(
      names = {"-q", "--quiet"},
      description = "No summary.")
  boolean quiet;

  @Parameters(
      paramLabel = "INPUT",
      arity = "1..*",
      description =
          "Files, directories (every file below, in path order) or globs (** for any depth); .gz is read.")
  List<String> inputs;

  private final Io io;

  SplitCommand(Io io) {
    this.io = io;
  }

  private Compression compression() {
    if (gzip && compression == Compression.ZSTD) {
      throw new ParameterException(
          spec.commandLine(), "--gzip and --compress zstd disagree: give one of them");
    }
    return gzip ? Compression.GZIP : compression;
  }

  @Override
  public Integer call() throws IOException {
    SplitSpec job = jobSpec();
    SplitJob.Result result;
    try {
      refuseDestructivePaths(job);
      Signals.whenStopped(
          () -> Signals.resumable("idem split", directory + " (its .idem-split/)", ""));
      result = SplitJob.run(job, new ProgressDisplay(io, "idem split", quiet));
    } catch (BadRecordException e) {
      throw new UserException(e.getMessage());
    }
    if (!quiet) {
      long[] per = result.perShard();
      io.err()
          .printf(
              Locale.ROOT,
              "idem split: %s%,d records into %d shards in %s (%,d to %,d "
                  + "a shard), %,d bad records%n",
              result.alreadyComplete() ? "already complete: " : result.resumed() ? "resumed: " : "",
              result.records(),
              per.length,
              directory,
              LongStream.of(per).min().orElse(0),
              LongStream.of(per).max().orElse(0),
              result.badRecords());
    }
    return 0;
  }

  /** The job the options ask for; a usage error for options the spec refuses. */
  SplitSpec jobSpec() throws IOException {
    try {
      KeySpec keySpec = record.keySpec();
      RecordFormat format = record.format(keySpec, inputs);
      return SplitSpec.builder(inputs, keySpec, ring.ring(shards), directory)
          .format(format)
          .header(record.header(keySpec, format))
          .normalizer(record.normalizer())
          .maxRecordBytes(badRecords.maxRecordBytes())
          .compression(compression())
          .onBadRecord(badRecords.policy)
          .checkpointRecords(checkpointEvery)
          .verifyInputs(verify.verifyInputs)
          .build();
    } catch (IllegalArgumentException e) {
      throw new ParameterException(spec.commandLine(), e.getMessage());
    }
  }

  /** Refuses shard files and a quarantine file that are inputs or each other. */
  private void refuseDestructivePaths(SplitSpec s) throws IOException {
    OutputGuard guard =
        new OutputGuard()
            .inputs(s.inputs())
            .input("--ring-nodes " + ring.ringNodes, ring.ringNodes)
            .stateDirectory(
                "the split's state " + SplitJob.stateDirectory(directory),
                SplitJob.stateDirectory(directory));
    for (int i = 0; i < s.ring().size(); i++) {
      Path shard = directory.resolve(SplitJob.shardFileName(i, s.format(), s.compression()));
      guard.output("shard file " + shard, shard);
    }
    badRecords.addQuarantineTo(guard);
    guard.check();
  }
}
