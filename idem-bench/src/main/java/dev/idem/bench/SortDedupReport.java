package dev.idem.bench;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The sort-dedup benchmark's report: one table row per contender with medians over the repetitions,
 * and the two targets of issue #5 (not slower than GNU sort on whole lines; peak RSS within twice
 * {@code --memory} plus the JVM's baseline) assessed from them.
 */
final class SortDedupReport {

  private static final double MIB = 1 << 20;
  private static final long MEMORY_MIB = 64;

  /** The repetitions of one contender. */
  private static final class Runs {
    final boolean json;
    final boolean idem;
    final boolean lazyHeap;
    final List<MeasuredProcess.Measurement> measurements = new ArrayList<>();
    final List<JsonNode> stats = new ArrayList<>();

    Runs(boolean json, boolean idem, boolean lazyHeap) {
      this.json = json;
      this.idem = idem;
      this.lazyHeap = lazyHeap;
    }

    double seconds() {
      return median(
          measurements.stream().mapToDouble(MeasuredProcess.Measurement::seconds).toArray());
    }

    double min() {
      return measurements.stream()
          .mapToDouble(MeasuredProcess.Measurement::seconds)
          .min()
          .orElse(0);
    }

    double max() {
      return measurements.stream()
          .mapToDouble(MeasuredProcess.Measurement::seconds)
          .max()
          .orElse(0);
    }

    double rssMiB() {
      return median(measurements.stream().mapToDouble(m -> m.peakRssKiB() / 1024.0).toArray());
    }

    double tempWrittenMiB() {
      return idem
          ? median(
              stats.stream().mapToDouble(s -> s.get("temp_bytes_written").asLong() / MIB).toArray())
          : median(measurements.stream().mapToDouble(m -> m.tempWrittenBytes() / MIB).toArray());
    }

    double tempPeakMiB() {
      return idem
          ? median(
              stats.stream().mapToDouble(s -> s.get("temp_peak_bytes").asLong() / MIB).toArray())
          : median(measurements.stream().mapToDouble(m -> m.tempPeakBytes() / MIB).toArray());
    }

    double statSeconds(String field) {
      return median(stats.stream().mapToDouble(s -> s.get(field).asLong() / 1000.0).toArray());
    }
  }

  private final SortDedupRun.Plan plan;
  private final SortDedupInputs.Input lines;
  private final SortDedupInputs.Input json;
  private final MeasuredProcess.Measurement baseline;
  private final MeasuredProcess.Measurement lazyBaseline;
  private final Map<String, Runs> byName = new LinkedHashMap<>();

  SortDedupReport(
      SortDedupRun.Plan plan,
      SortDedupInputs.Input lines,
      SortDedupInputs.Input json,
      MeasuredProcess.Measurement baseline,
      MeasuredProcess.Measurement lazyBaseline) {
    this.plan = plan;
    this.lines = lines;
    this.json = json;
    this.baseline = baseline;
    this.lazyBaseline = lazyBaseline;
  }

  void add(
      String name,
      boolean isJson,
      boolean isIdem,
      boolean lazyHeap,
      MeasuredProcess.Measurement m,
      JsonNode stats) {
    Runs r = byName.computeIfAbsent(name, n -> new Runs(isJson, isIdem, lazyHeap));
    r.measurements.add(m);
    if (stats != null) {
      r.stats.add(stats);
    }
  }

  String markdown(String command, String machine) {
    StringBuilder md = new StringBuilder();
    md.append("Reproduce: `flock /tmp/idem-bench.lock bin/idem-bench ")
        .append(command)
        .append("`\n\n");
    md.append("Machine and run: ").append(machine).append(".\n\n");
    md.append(
        String.format(
            Locale.ROOT,
            "Inputs (generated, fixed seed, %.0f %% of records "
                + "repeat an earlier key): %s; %s. Medians of %d repetitions, contenders interleaved;"
                + " inputs in the page cache. JVM: `%s` (one row: `%s`); JVM baseline (same flags, "
                + "one-line input): %.0f MiB RSS and %.2f s (%.0f MiB not pre-touched).%n%n",
            100 * SortDedupRun.Plan.DUPLICATE_SHARE,
            describe("whole lines", lines),
            describe("JSON Lines, key `id`", json),
            plan.reps(),
            String.join(" ", SortDedupRun.Plan.JVM_FLAGS),
            String.join(" ", SortDedupRun.Plan.JVM_FLAGS_LAZY),
            baseline.peakRssKiB() / 1024.0,
            baseline.seconds(),
            lazyBaseline.peakRssKiB() / 1024.0));
    md.append(
        "| input | contender | wall s (median; min–max) | vs sort | peak RSS MiB "
            + "| temp written MiB | temp peak MiB | runs / merge passes | reading s |\n");
    md.append("| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n");
    Runs sort = byName.values().stream().filter(r -> !r.idem).findFirst().orElse(null);
    for (Map.Entry<String, Runs> e : byName.entrySet()) {
      Runs r = e.getValue();
      JsonNode s = r.stats.isEmpty() ? null : r.stats.get(0);
      md.append(
          String.format(
              Locale.ROOT,
              "| %s | `%s` | %.1f (%.1f–%.1f) | %s | %.0f | %.0f%s " + "| %.0f%s | %s | %s |%n",
              r.json ? "JSONL" : "lines",
              e.getKey(),
              r.seconds(),
              r.min(),
              r.max(),
              sort == null || r.json
                  ? "–"
                  : String.format(Locale.ROOT, "%.2f×", r.seconds() / sort.seconds()),
              r.rssMiB(),
              r.tempWrittenMiB(),
              r.idem ? "" : " (polled)",
              r.tempPeakMiB(),
              r.idem ? "" : " (polled)",
              s == null ? "–" : s.get("runs").asInt() + " / " + s.get("merge_passes").asInt(),
              r.idem ? String.format(Locale.ROOT, "%.1f", r.statSeconds("read_millis")) : "–"));
    }
    md.append("\n").append(targets(sort));
    return md.toString();
  }

  private String targets(Runs sort) {
    StringBuilder t = new StringBuilder();
    for (Map.Entry<String, Runs> e : byName.entrySet()) {
      Runs r = e.getValue();
      if (sort != null && r.idem && !r.json && !r.lazyHeap) {
        double ratio = r.seconds() / sort.seconds();
        t.append(
            String.format(
                Locale.ROOT,
                "- Target 1, not slower than GNU sort on whole "
                    + "lines, `%s`: %s — %.1f s vs sort %.1f s (%.2f×).%n",
                e.getKey(),
                ratio <= 1.0 ? "**met**" : "**missed**",
                r.seconds(),
                sort.seconds(),
                ratio));
      }
    }
    for (Map.Entry<String, Runs> e : byName.entrySet()) {
      if (e.getValue().idem) {
        double limit =
            2 * MEMORY_MIB
                + (e.getValue().lazyHeap ? lazyBaseline : baseline).peakRssKiB() / 1024.0;
        double rss = e.getValue().rssMiB();
        t.append(
            String.format(
                Locale.ROOT,
                "- Target 2, peak RSS ≤ 2 × %d MiB + baseline = %.0f"
                    + " MiB, `%s`: %s — %.0f MiB.%n",
                MEMORY_MIB,
                limit,
                e.getKey(),
                rss <= limit ? "met" : "missed",
                rss));
      }
    }
    return t.toString();
  }

  private static String describe(String what, SortDedupInputs.Input in) {
    return String.format(
        Locale.ROOT,
        "%s %.2f GiB, %,d records, %,d distinct keys",
        what,
        in.bytes() / (double) (1L << 30),
        in.records(),
        in.keys());
  }

  private static double median(double[] v) {
    if (v.length == 0) {
      return 0;
    }
    double[] s = v.clone();
    Arrays.sort(s);
    return s.length % 2 == 1 ? s[s.length / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
  }
}
