package dev.idem.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Stream;

/**
 * A benchmark scenario, named by what it measures: it prepares its data, lists its contenders, runs
 * them side by side ({@link Bench#measure}), checks every output against its oracle and appends one
 * results row per run.
 */
abstract class Scenario {

  final String name;
  final String summary;
  final long defaultSize;

  Scenario(String name, long defaultSize, String summary) {
    this.name = name;
    this.defaultSize = defaultSize;
    this.summary = summary;
  }

  abstract void run(Bench b) throws Exception;

  /** The options of one run and what every scenario needs around its contenders. */
  static final class Bench {
    final long size;
    final int reps;
    final List<String> only;
    final Path work;
    final Results results;
    final Map<String, String> options;
    final List<Results.Row> rows = new ArrayList<>();
    final List<String> notes = new ArrayList<>();

    Bench(
        long size,
        int reps,
        List<String> only,
        Path work,
        Results results,
        Map<String, String> options) {
      this.size = size;
      this.reps = reps;
      this.only = only;
      this.work = work;
      this.results = results;
      this.options = options;
    }

    String option(String key, String fallback) {
      return options.getOrDefault(key, fallback);
    }

    /**
     * The contenders to run: those named by {@code --only} (all {@code defaults} without it), less
     * those that cannot run here, each noted.
     */
    List<Contender> select(List<Contender> all, List<String> defaults) {
      List<Contender> chosen = new ArrayList<>();
      for (Contender c : all) {
        if (!(only.isEmpty() ? defaults.contains(c.name()) : only.contains(c.name()))) {
          continue;
        }
        if (c.missing() != null) {
          note("skipped " + c.name() + ": " + c.missing());
        } else {
          chosen.add(c);
        }
      }
      return chosen;
    }

    void note(String text) {
      notes.add(text);
      log(text);
    }

    static void log(String text) {
      System.err.println("idem-bench: " + text);
    }

    /** Runs {@code c} with {@code watch}; its stderr goes to {@code work/logs}. */
    ProcessHarness.Outcome measure(Contender c, ProcessHarness.Watch watch)
        throws IOException, InterruptedException {
      ProcessHarness.Outcome o = ProcessHarness.run(c, watch, work.resolve("logs"));
      log(
          String.format(
              Locale.ROOT,
              "%s: %.2f s, %.2f s CPU, %,d KiB peak RSS%s%s",
              c.name(),
              o.wallSeconds(),
              o.cpuSeconds(),
              o.rssKiB(),
              o.killed() ? ", killed" : "",
              o.exit() != 0 && !o.killed() ? ", exit " + o.exit() + ": " + o.error() : ""));
      return o;
    }

    /** Appends a results row, and keeps it for this run's tables. */
    void record(
        String scenario,
        String part,
        String contender,
        int rep,
        ProcessHarness.Outcome o,
        boolean correct,
        String check,
        String ref,
        Map<String, Object> metrics)
        throws IOException {
      rows.add(
          results.append(scenario, part, contender, size, rep, o, correct, check, ref, metrics));
    }

    /** Contenders in turns: rep r starts with the r-th, so drift in load hits all alike. */
    static <T> List<T> rotation(List<T> list, int rep) {
      List<T> r = new ArrayList<>(list);
      if (!r.isEmpty()) {
        java.util.Collections.rotate(r, -((rep - 1) % r.size()));
      }
      return r;
    }

    /** A fresh, empty directory under the work directory. */
    Path fresh(String name) throws IOException {
      Path dir = work.resolve(name);
      delete(dir);
      return Files.createDirectories(dir);
    }

    static void delete(Path path) throws IOException {
      if (!Files.exists(path)) {
        return;
      }
      try (Stream<Path> all = Files.walk(path)) {
        for (Path p : all.sorted(Comparator.reverseOrder()).toList()) {
          Files.delete(p);
        }
      }
    }

    static void copy(Path from, Path to) throws IOException {
      delete(to);
      Files.createDirectories(to.toAbsolutePath().getParent());
      try (Stream<Path> all = Files.walk(from)) {
        for (Path p : all.toList()) {
          Files.copy(p, to.resolve(from.relativize(p).toString()));
        }
      }
    }

    static List<String> list(String csv) {
      return csv == null || csv.isBlank() ? List.of() : Arrays.asList(csv.split(","));
    }
  }
}
