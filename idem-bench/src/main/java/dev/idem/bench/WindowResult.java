package dev.idem.bench;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What the forks of one contender printed: the state run's samples and verdicts, the timed runs'
 * timings. The state run is not timed: its full collections for the heap samples (off the clock)
 * also empty the young generation, which spares it the collections a real run pays for.
 */
final class WindowResult {

  /** One point of state: after {@code events} events, at event time {@code eventTime}. */
  record Point(long events, long eventTime, long held, long bytes) {}

  final String name;

  /** Per run: timed nanoseconds (sampling excluded), events, GC milliseconds while timed. */
  final List<long[]> runs = new ArrayList<>();

  /** Per run: the events/s of each slice. */
  final List<List<Double>> sliceRates = new ArrayList<>();

  final List<Point> samples = new ArrayList<>();
  final List<Point> heap = new ArrayList<>();

  /** kind → {kept, duplicate, late}, from the state run. */
  final Map<String, long[]> counts = new LinkedHashMap<>();

  final Map<String, Long> results = new LinkedHashMap<>();

  /** Messages when a run disagreed with the state run (determinism check). */
  final List<String> problems = new ArrayList<>();

  WindowResult(String name) {
    this.name = name;
  }

  /** Reads the lines of one fork: the state run fills samples and counts, the others time. */
  void addRun(List<String> lines, boolean stateRun) {
    long nanos = 0;
    long events = 0;
    List<Double> rates = new ArrayList<>();
    Map<String, long[]> runCounts = new LinkedHashMap<>();
    Map<String, Long> runResults = new LinkedHashMap<>();
    for (String line : lines) {
      String[] f = line.split("\t");
      switch (f[0]) {
        case "SLICE" -> {
          long e = Long.parseLong(f[1]);
          long ns = Long.parseLong(f[2]);
          events += e;
          nanos += ns;
          rates.add(e * 1e9 / ns);
        }
        case "SAMPLE" -> {
          if (stateRun) {
            samples.add(point(f));
          }
        }
        case "HEAP" -> heap.add(point(f));
        case "COUNT" ->
            runCounts.put(
                f[1],
                new long[] {Long.parseLong(f[2]), Long.parseLong(f[3]), Long.parseLong(f[4])});
        case "RESULT" -> runResults.put(f[1], Long.parseLong(f[2]));
        default -> {} // JVM or JOL chatter
      }
    }
    if (events == 0 || !runResults.containsKey("keptChecksum")) {
      problems.add("a run printed no results (see its log)");
      return;
    }
    if (stateRun) {
      counts.putAll(runCounts);
      results.putAll(runResults);
      return;
    }
    runs.add(new long[] {nanos, events, runResults.getOrDefault("gcMillis", -1L)});
    sliceRates.add(rates);
    if (!runResults.get("keptChecksum").equals(results.get("keptChecksum"))) {
      problems.add("timed run " + runs.size() + " kept other events than the state run");
    }
  }

  private static Point point(String[] f) {
    return new Point(
        Long.parseLong(f[1]), Long.parseLong(f[2]), Long.parseLong(f[3]), Long.parseLong(f[4]));
  }

  /** Events per second of each run (timed part only). */
  List<Double> runRates() {
    List<Double> r = new ArrayList<>();
    for (long[] run : runs) {
      r.add(run[1] * 1e9 / run[0]);
    }
    return r;
  }

  /** The share of the timed part spent in garbage collection, median over runs. */
  double gcShare() {
    List<Double> s = new ArrayList<>();
    for (long[] run : runs) {
      s.add(run[2] * 1e6 / run[0]);
    }
    return median(s);
  }

  /** The median over runs of each run's median slice rate. */
  double medianSliceRate() {
    List<Double> m = new ArrayList<>();
    for (List<Double> rates : sliceRates) {
      m.add(median(rates));
    }
    return median(m);
  }

  long total(int verdict) {
    long s = 0;
    for (long[] c : counts.values()) {
      s += c[verdict];
    }
    return s;
  }

  static double median(List<Double> values) {
    List<Double> v = new ArrayList<>(values);
    v.sort(null);
    if (v.isEmpty()) {
      return Double.NaN;
    }
    int m = v.size() / 2;
    return v.size() % 2 == 1 ? v.get(m) : (v.get(m - 1) + v.get(m)) / 2;
  }
}
