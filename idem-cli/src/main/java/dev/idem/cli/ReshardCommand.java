package dev.idem.cli;

import dev.idem.engine.output.OutputGuard;
import dev.idem.engine.shard.ConsistentHashRing;
import dev.idem.engine.shard.ReshardJob;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code idem reshard}: the kept keys of finished jobs, regrouped by a new ring. */
@Command(
    name = "reshard",
    footerHeading = "%nExamples:%n",
    footer = {
      "  # the keys of two finished shard jobs, moved onto a ring of 3 nodes",
      "  idem dedup --key id --shard 0/2 --state st-0 -o out-0.jsonl \\",
      "      examples/clicks.jsonl",
      "  idem dedup --key id --shard 1/2 --state st-1 -o out-1.jsonl \\",
      "      examples/clicks.jsonl",
      "  idem reshard --shards 3 -o ring3 st-0 st-1"
    },
    mixinStandardHelpOptions = true,
    versionProvider = IdemCommand.Version.class,
    sortOptions = false,
    description = {
      "Move the exact state of finished dedup jobs onto a new ring: every key the STATE "
          + "directories kept goes to DIR/seen-00000.idx, ... (one exact set per node of the "
          + "new ring). Give node i's file to its next job with 'idem dedup --shard i/N "
          + "--seen-before DIR/seen-0000i.idx': keys any earlier shard kept stay duplicates, "
          + "so growing from N to N+1 workers between jobs keeps the result exact.",
      ""
    },
    exitCodeListHeading = "%nExit status:%n",
    exitCodeList = {
      "0:done",
      "1:a state cannot be read or DIR cannot be written",
      "2:usage error, or a state that cannot be resharded (running, unfinished, windowed)"
    })
final class ReshardCommand implements Callable<Integer> {

  @Spec CommandSpec spec;

  @Option(
      names = "--shards",
      paramLabel = "N",
      description = "Nodes of the new ring (or " + "give --ring-nodes).")
  Integer shards;

  @Mixin ShardOptions ring;

  @Option(
      names = {"-o", "--output"},
      paramLabel = "DIR",
      required = true,
      description = "Where the new nodes' files go.")
  Path out;

  @Parameters(
      paramLabel = "STATE",
      arity = "1..*",
      description = "The --state directories of the finished jobs.")
  List<Path> states;

  private final Io io;

  ReshardCommand(Io io) {
    this.io = io;
  }

  @Override
  public Integer call() throws IOException {
    ConsistentHashRing r;
    try {
      r = ring.ring(shards);
    } catch (IllegalArgumentException e) {
      throw new ParameterException(spec.commandLine(), e.getMessage());
    }
    refuseDestructivePaths(r);
    ReshardJob.Result result = ReshardJob.run(states, r, out);
    io.err()
        .printf(
            Locale.ROOT,
            "idem reshard: %,d keys from %d states into %d files in %s%s%n",
            result.keys(),
            states.size(),
            r.size(),
            out,
            result.moved() < 0
                ? ""
                : String.format(
                    Locale.ROOT,
                    "; %,d keys (%.1f %%) changed owner",
                    result.moved(),
                    100.0 * result.moved() / Math.max(1, result.keys())));
    return 0;
  }

  /** Refuses node files that would land in a state being read, or on the ring file. */
  private void refuseDestructivePaths(ConsistentHashRing r) throws IOException {
    OutputGuard guard = new OutputGuard().input("--ring-nodes " + ring.ringNodes, ring.ringNodes);
    for (Path state : states) {
      guard.stateDirectory("state " + state, state);
    }
    for (int i = 0; i < r.size(); i++) {
      Path file = out.resolve(ReshardJob.fileName(i));
      guard.output("node file " + file, file);
    }
    guard.check();
  }
}
