package dev.idem.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import com.fasterxml.jackson.databind.SerializationFeature;
import dev.idem.core.ByteSize;
import dev.idem.engine.DedupStats;
import dev.idem.engine.JobException;
import dev.idem.engine.state.Checkpoint;
import dev.idem.engine.state.Manifest;
import dev.idem.engine.state.StateInspection;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code idem inspect STATE}. */
@Command(
    name = "inspect",
    footerHeading = "%nExamples:%n",
    footer = {
      "  idem dedup --key id --state st-inspect -o kept.jsonl examples/clicks.jsonl",
      "  idem inspect st-inspect",
      "  idem inspect --json st-inspect"
    },
    mixinStandardHelpOptions = true,
    versionProvider = IdemCommand.Version.class,
    description = {
      "Describe a dedup job's state directory: its command (MANIFEST), last "
          + "checkpoint, counts, sizes, and whether a process is running it. Safe while the job "
          + "runs. The states of dedup on text records only: those of sort-dedup, near-dup, "
          + "Parquet dedup and split are named as such and refused (exit 1).",
      ""
    })
final class InspectCommand implements Callable<Integer> {

  @Parameters(index = "0", paramLabel = "STATE", description = "The --state directory.")
  Path state;

  @Option(names = "--json", description = "Print one JSON object instead of text.")
  boolean json;

  private final Io io;

  /**
   * The states of the other resumable jobs, which have no manifest, named as what they are rather
   * than "not an idem state directory".
   */
  private void refuseOtherKinds() {
    if (Files.exists(state.resolve("MANIFEST.json"))) {
      return;
    }
    String kind =
        Files.exists(state.resolve("SORT-DEDUP.json"))
            ? "an idem sort-dedup job"
            : Files.exists(state.resolve("NEAR-DUP.json"))
                ? "an idem near-dup job"
                : Files.exists(state.resolve("store.created"))
                    ? "a Parquet dedup job or a library Deduplicator"
                    : null;
    if (kind != null) {
      throw new UserException(
          state
              + " is the state of "
              + kind
              + ": idem inspect describes the states of dedup jobs on text records only; rerun "
              + "that job's command to resume it");
    }
  }

  InspectCommand(Io io) {
    this.io = io;
  }

  @Override
  public Integer call() throws IOException {
    refuseOtherKinds();
    StateInspection s;
    try {
      s = StateInspection.of(state);
    } catch (JobException e) {
      throw new UserException(e.getMessage());
    }
    if (json) {
      io.out()
          .println(
              new ObjectMapper()
                  .enable(SerializationFeature.INDENT_OUTPUT)
                  .setPropertyNamingStrategy(PropertyNamingStrategies.SNAKE_CASE)
                  .writeValueAsString(s));
      return 0;
    }
    Manifest m = s.manifest();
    Checkpoint c = s.checkpoint();
    DedupStats d = c.stats();
    io.out()
        .printf(
            Locale.ROOT,
            "state       %s (%s)%n",
            state,
            s.runningBy() == null ? "idle" : "running, " + s.runningBy());
    io.out().printf(Locale.ROOT, "created     %s%n", m.created());
    io.out()
        .printf(
            Locale.ROOT,
            "inputs      %d file%s%n",
            m.inputs().size(),
            m.inputs().size() == 1 ? "" : "s");
    m.inputs()
        .forEach(
            f ->
                io.out()
                    .printf(
                        Locale.ROOT,
                        "              %s (%s)%n",
                        f.path(),
                        ByteSize.format(f.size())));
    io.out()
        .printf(
            Locale.ROOT,
            "key         %s, format %s%s, normalizer %s%n",
            m.key(),
            m.format().displayName(),
            m.header() ? " with header" : "",
            m.normalizer());
    io.out()
        .printf(
            Locale.ROOT,
            "mode        %s, key mode %s, filter %s for %,d keys at %s, " + "seed %d%n",
            m.mode().name().toLowerCase(Locale.ROOT),
            m.keyMode().name().toLowerCase(Locale.ROOT),
            m.filterType().displayName(),
            m.filterCapacity(),
            Percent.of(m.fpp()),
            m.seed());
    io.out()
        .printf(
            Locale.ROOT,
            "output      %s%s%n",
            m.output(),
            m.dropped() == null ? "" : ", dropped " + m.dropped());
    io.out()
        .printf(
            Locale.ROOT,
            "checkpoint  %d%s: input %d of %d at byte %,d (line %,d); " + "output %,d bytes%n",
            c.sequence(),
            c.complete() ? " (complete)" : "",
            Math.min(c.fileIndex() + 1, m.inputs().size()),
            m.inputs().size(),
            c.offset(),
            c.line(),
            c.outputBytes());
    io.out()
        .printf(
            Locale.ROOT,
            "counts      %,d records, %,d kept, %,d duplicates, %,d bad, "
                + "%,d exact-tier lookups%n",
            c.records(),
            d.kept(),
            d.duplicates(),
            c.badRecords(),
            d.exactLookups());
    io.out()
        .printf(
            Locale.ROOT,
            "store       %s in RocksDB table files, about %,d keys%n",
            ByteSize.format(Math.max(0, s.storeBytes())),
            s.estimatedKeys());
    io.out()
        .printf(
            Locale.ROOT,
            "snapshots   %s%n",
            s.snapshots().isEmpty()
                ? "none (tiers = " + "journal replay)"
                : String.join(", ", s.snapshots()));
    return 0;
  }
}
