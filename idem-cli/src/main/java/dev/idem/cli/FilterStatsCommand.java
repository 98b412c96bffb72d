package dev.idem.cli;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import dev.idem.core.ByteSize;
import dev.idem.core.Fingerprinter;
import dev.idem.core.filter.AbstractBloomFilter;
import dev.idem.core.filter.FilterSnapshot;
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
    AbstractBloomFilter f = snapshot.filter();
    Fingerprinter fp = snapshot.fingerprinter();
    Map<String, Object> stats = new LinkedHashMap<>();
    stats.put("file", file.toString());
    stats.put("file_bytes", Files.size(file));
    stats.put("format_version", snapshot.formatVersion());
    stats.put("type", f.type().displayName());
    stats.put("capacity", f.capacity());
    stats.put("target_fpp", f.targetFpp());
    stats.put("bits", f.bitSize());
    stats.put("bits_per_key_at_capacity", (double) f.bitSize() / f.capacity());
    stats.put("hash_count", f.hashCount());
    stats.put("hash", fp.algorithm().displayName());
    stats.put("seed", fp.seed());
    stats.put("normalizer", fp.normalizer().spec());
    stats.put("keys", f.approximateCount());
    stats.put("fill_ratio", f.fillRatio());
    stats.put("expected_fpp_now", f.expectedFpp());
    stats.put("expected_fpp_at_capacity", f.falsePositiveRate(f.capacity()));
    if (json) {
      printJson(stats);
    } else {
      printText(stats, f);
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

  private void printText(Map<String, Object> s, AbstractBloomFilter f) {
    io.out().printf(Locale.ROOT, """
        file                 %s (%s, format version %d)
        type                 %s
        capacity             %,d keys at target false-positive rate %s
        size                 %,d bits (%s), %.2f bits/key at capacity, k=%d
        hashing              %s, seed %d, normalizer %s
        keys                 %,d (puts that changed the filter)
        fill                 %.2f %% of bits set
        false-positive rate  %s now, %s at capacity (%s formula for this layout)
        """,
        s.get("file"), ByteSize.format((Long) s.get("file_bytes")), s.get("format_version"),
        s.get("type"),
        f.capacity(), Percent.of(f.targetFpp()),
        f.bitSize(), ByteSize.format((f.bitSize() + 7) / 8), s.get("bits_per_key_at_capacity"),
        f.hashCount(),
        s.get("hash"), s.get("seed"), s.get("normalizer"),
        f.approximateCount(),
        100 * (Double) s.get("fill_ratio"),
        Percent.of((Double) s.get("expected_fpp_now")),
        Percent.of((Double) s.get("expected_fpp_at_capacity")), s.get("type"));
  }
}
