package dev.idem.cli;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import dev.idem.core.ByteSize;
import dev.idem.core.Fingerprinter;
import dev.idem.core.filter.AbstractBloomFilter;
import dev.idem.core.filter.FilterSnapshot;
import dev.idem.core.filter.MembershipFilter;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code idem filter stats}: what a snapshot holds. */
@Command(
    name = "stats",
    footerHeading = "%nExamples:%n",
    footer = {
      "  idem filter build --expected 1M -o urls.idx urls.txt",
      "  idem filter stats urls.idx",
      "  idem filter stats --json urls.idx"
    },
    mixinStandardHelpOptions = true,
    versionProvider = IdemCommand.Version.class,
    description = {"Describe a filter snapshot: layout, hashing, fill and expected error.", ""})
final class FilterStatsCommand implements Callable<Integer> {

  @Parameters(index = "0", paramLabel = "FILTER", description = "Snapshot file.")
  Path file;

  @Option(names = "--json", description = "Print one JSON object instead of text.")
  boolean json;

  private final Io io;

  FilterStatsCommand(Io io) {
    this.io = io;
  }

  @Override
  public Integer call() throws IOException {
    FilterSnapshot snapshot = SnapshotLoader.open(file, SnapshotLoader.Mode.MAP);
    MembershipFilter f = snapshot.filter();
    Fingerprinter fp = snapshot.fingerprinter();
    Map<String, Object> stats = new LinkedHashMap<>();
    stats.put("file", file.toString());
    stats.put("file_bytes", Files.size(file));
    stats.put("format_version", snapshot.formatVersion());
    stats.put("type", f.type().displayName());
    stats.put("capacity", f.capacity());
    stats.put("bits", f.bitSize());
    stats.put("hash", fp.algorithm().displayName());
    stats.put("seed", fp.seed());
    stats.put("normalizer", fp.normalizer().spec());
    stats.put("keys", f.approximateCount());
    stats.put("expected_fpp_now", f.expectedFpp());
    if (f instanceof AbstractBloomFilter b) {
      stats.put("expected_fpp_at_capacity", b.falsePositiveRate(b.capacity()));
      stats.put("fill_ratio", b.fillRatio());
    }
    stats.putAll(f.layout());
    if (json) {
      printJson(stats);
    } else {
      printText(stats);
    }
    return 0;
  }

  private void printJson(Map<String, Object> stats) throws IOException {
    try (JsonGenerator g = new JsonFactory().createGenerator(io.out())) {
      g.disable(JsonGenerator.Feature.AUTO_CLOSE_TARGET);
      g.writeStartObject();
      for (Map.Entry<String, Object> e : stats.entrySet()) {
        g.writeFieldName(e.getKey());
        Object v = e.getValue();
        if (v instanceof Long l) {
          g.writeNumber(l);
        } else if (v instanceof Integer i) {
          g.writeNumber(i);
        } else if (v instanceof Double d) {
          g.writeNumber(d);
        } else {
          g.writeString(String.valueOf(v));
        }
      }
      g.writeEndObject();
    }
    io.out().println();
  }

  private void printText(Map<String, Object> stats) {
    for (Map.Entry<String, Object> e : stats.entrySet()) {
      io.out()
          .printf(
              Locale.ROOT,
              "%-26s %s%n",
              e.getKey().replace('_', ' '),
              format(e.getKey(), e.getValue()));
    }
  }

  /** Rates as percentages, sizes in binary units, counts with separators. */
  private static String format(String name, Object value) {
    if (value instanceof Double d) {
      if (name.contains("fpp") || name.endsWith("ratio") || name.equals("load")) {
        return Percent.of(d);
      }
      return String.format(Locale.ROOT, "%.4g", d);
    }
    if (value instanceof Long l) {
      String n = String.format(Locale.ROOT, "%,d", l);
      return name.equals("bits") || name.equals("file_bytes")
          ? n + " (" + ByteSize.format(name.equals("bits") ? (l + 7) / 8 : l) + ")"
          : n;
    }
    return String.valueOf(value);
  }
}
