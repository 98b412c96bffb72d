package dev.idem.cli;

import com.fasterxml.jackson.databind.JsonNode;
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
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
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
      "Describe any idem state: a dedup, sort-dedup, near-dup or Parquet job's --state "
          + "directory, a split's output directory, or a library deduplicator's durable set: the "
          + "job's inputs and settings, its last checkpoint, its files, and whether a process is "
          + "running it. Safe while the job runs.",
      ""
    })
final class InspectCommand implements Callable<Integer> {

  @Parameters(
      index = "0",
      paramLabel = "STATE",
      description = "The --state directory (for split, the output directory).")
  Path state;

  @Option(names = "--json", description = "Print one JSON object instead of text.")
  boolean json;

  private final Io io;

  InspectCommand(Io io) {
    this.io = io;
  }

  @Override
  public Integer call() throws IOException {
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
    if (s.dedup() == null) {
      describe(s);
      return 0;
    }
    Manifest m = s.dedup().manifest();
    Checkpoint c = s.dedup().checkpoint();
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
            ByteSize.format(Math.max(0, s.dedup().storeBytes())),
            s.dedup().estimatedKeys());
    io.out()
        .printf(
            Locale.ROOT,
            "files       %s%n",
            s.files().isEmpty() ? "none" : String.join(", ", s.files()));
    return 0;
  }

  /** The state of a job other than dedup: its identity and checkpoint, as the state keeps them. */
  private void describe(StateInspection s) {
    io.out()
        .printf(
            Locale.ROOT,
            "state       %s (%s)%n",
            state,
            s.runningBy() == null ? "idle" : "running, " + s.runningBy());
    io.out()
        .printf(
            Locale.ROOT,
            "kind        %s (%s, layout version %d)%n",
            s.kind(),
            s.file().getFileName(),
            s.version());
    JsonNode identity = s.identity();
    if (identity != null && identity.has("inputs")) {
      JsonNode inputs = identity.get("inputs");
      io.out()
          .printf(
              Locale.ROOT, "inputs      %d file%s%n", inputs.size(), inputs.size() == 1 ? "" : "s");
      inputs.forEach(
          f ->
              io.out()
                  .printf(
                      Locale.ROOT,
                      "              %s (%s)%n",
                      f.path("path").asText(),
                      ByteSize.format(f.path("size").asLong())));
    }
    JsonNode settings =
        identity == null ? null : identity.has("settings") ? identity.get("settings") : identity;
    if (settings != null) {
      io.out().printf(Locale.ROOT, "settings    %s%n", fields(settings, "inputs"));
    }
    io.out()
        .printf(
            Locale.ROOT,
            "checkpoint  %s%n",
            s.checkpoint() == null ? "none yet" : fields(s.checkpoint(), "identity", "read"));
    io.out()
        .printf(
            Locale.ROOT,
            "files       %s%n",
            s.files().isEmpty() ? "none" : String.join(", ", s.files()));
  }

  /** The scalar fields of {@code node}, and those of its objects, as {@code name value; ...}. */
  private static String fields(JsonNode node, String... skip) {
    List<String> out = new ArrayList<>();
    node.fields()
        .forEachRemaining(
            e -> {
              if (List.of(skip).contains(e.getKey())) {
                return;
              }
              JsonNode v = e.getValue();
              if (v.isValueNode()) {
                out.add(e.getKey().replace('_', ' ') + " " + v.asText());
              } else if (v.isObject()) {
                out.add(e.getKey().replace('_', ' ') + " {" + fields(v, "ended", "blocks") + "}");
              } else if (v.isArray()) {
                out.add(e.getKey().replace('_', ' ') + " [" + v.size() + "]");
              }
            });
    return String.join("; ", out);
  }
}
