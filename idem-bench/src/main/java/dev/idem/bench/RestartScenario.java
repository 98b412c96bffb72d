package dev.idem.bench;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * {@code restart}: a pipeline worker ({@link RestartWorker}) has processed 70 % of N ids and is
 * killed (SIGKILL, when it prints {@code KILL-POINT}); a new worker opens the state. Per contender
 * the load runs once, and each rep restarts from a copy of the killed state: the time from spawn to
 * its first answer, its own open time, the whole restart to the end, peak RSS, the done-set's reads
 * per new id, and its decisions against the stream's truth (0 missed, 0 repeated, and the output
 * exactly ids 0 … N-1, or the run is wrong).
 */
final class RestartScenario extends Scenario {

  private static final int COMMIT_EVERY = 10_000;

  RestartScenario() {
    super(
        "restart",
        1_000_000,
        "A pipeline worker killed at 70% of N ids restarts: idem's durable deduplicator against"
            + " RocksDB alone, a HashSet rebuilt from the output, and a Redis set.");
  }

  @Override
  void run(Bench b) throws Exception {
    long n = b.size;
    RestartStream stream = new RestartStream(n);
    List<String> names = b.only.isEmpty() ? List.of("idem", "rocksdb", "hashset", "redis") : b.only;
    Map<String, Path> killed = new LinkedHashMap<>();
    Map<String, Double> loads = new LinkedHashMap<>();
    for (String name : names) {
      if (name.equals("redis") && !ProcessHarness.Redis.available()) {
        b.note("skipped redis: redis-server is not installed (apt-get install redis-server)");
        continue;
      }
      Path dir = b.fresh("restart-" + name);
      java.nio.file.Files.createDirectories(dir.resolve("live"));
      ProcessHarness.Outcome load;
      if (name.equals("redis")) {
        try (ProcessHarness.Redis redis = ProcessHarness.Redis.start(dir.resolve("live/redis"))) {
          load = b.measure(worker(b, name, "load", dir, redis.port), watchLoad());
          redis.save();
        }
      } else {
        load = b.measure(worker(b, name, "load", dir, 0), watchLoad());
      }
      if (!load.killed()) {
        throw new IllegalStateException(
            name + " load did not reach its kill point: " + load.stderrTail());
      }
      loads.put(name, load.wallSeconds());
      Bench.copy(dir.resolve("live"), dir.resolve("killed"));
      killed.put(name, dir);
    }
    for (int rep = 1; rep <= b.reps; rep++) {
      for (Map.Entry<String, Path> e : Bench.rotation(new ArrayList<>(killed.entrySet()), rep)) {
        String name = e.getKey();
        Path dir = e.getValue();
        Bench.copy(dir.resolve("killed"), dir.resolve("live"));
        ProcessHarness.Outcome o;
        Map<String, Object> metrics = new LinkedHashMap<>();
        ProcessHarness.Watch watch = ProcessHarness.Watch.NONE.readyOnLine("FIRST");
        if (name.equals("redis")) {
          try (ProcessHarness.Redis redis = ProcessHarness.Redis.start(dir.resolve("live/redis"))) {
            o = b.measure(worker(b, name, "restart", dir, redis.port), watch);
            metrics.put("server_rss_mib", redis.peakRssKiB() / 1024);
          }
        } else {
          o = b.measure(worker(b, name, "restart", dir, 0), watch);
        }
        long newChecked = Long.parseLong(value(o, "new_checked", "-1"));
        long missed = Long.parseLong(value(o, "missed", "-1"));
        long repeated = Long.parseLong(value(o, "repeated", "-1"));
        boolean right = o.ok() && stream.outputRight(dir.resolve("live/output.txt"));
        metrics.put("first_answer_s", Results.round(o.readySeconds()));
        metrics.put("open_s", Double.parseDouble(value(o, "open_seconds", "-1")));
        metrics.put(
            "reads_per_new_id", Double.parseDouble(value(o, "reads_new", "-1")) / newChecked);
        metrics.put("missed", missed);
        metrics.put("repeated", repeated);
        metrics.put("load_to_70pct_s", Results.round(loads.get(name)));
        boolean correct = right && missed == 0 && repeated == 0;
        String check =
            correct
                ? "0 missed, 0 repeated, output ids 0..N-1"
                : String.format(
                    Locale.ROOT,
                    "missed %d, repeated %d, output right %s %s",
                    missed,
                    repeated,
                    right,
                    o.error());
        b.record("restart", "", name, rep, o, correct, check, "idem", metrics);
      }
    }
  }

  private static ProcessHarness.Watch watchLoad() {
    return ProcessHarness.Watch.NONE.killOnLine("KILL-POINT");
  }

  private static String value(ProcessHarness.Outcome o, String name, String fallback) {
    String v = o.stat(name);
    return v == null ? fallback : v;
  }

  /**
   * The worker child: idem, RocksDB and Redis in 256 MiB; the HashSet with room for its Strings.
   */
  private static Contender worker(Bench b, String name, String phase, Path dir, int port) {
    long maxMemory = 256L << 20;
    String heap = name.equals("hashset") ? Math.max(512, (b.size * 320) >> 20) + "m" : "256m";
    Path live = dir.resolve("live");
    return Contender.java(
        name,
        heap,
        RestartWorker.class,
        name,
        phase,
        Long.toString(b.size),
        live.resolve("state").toString(),
        live.resolve("output.txt").toString(),
        Long.toString(maxMemory),
        Integer.toString(COMMIT_EVERY),
        Integer.toString(port));
  }
}
