package dev.idem.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Stream;

/**
 * {@code bin/idem-bench sort-dedup [--gb G] [--quick] [--reps N] [--tmp DIR] [--out DIR]}: exact
 * dedup of a multi-GB input within 64 MiB, {@code idem sort-dedup} against {@code LC_ALL=C sort -u
 * -S 64M} in the same run, each contender a child process measured by {@link MeasuredProcess};
 * every output is checked against the digest of what it must hold. The generated inputs, runs and
 * outputs live in a directory under {@code --tmp} removed at the end.
 */
final class SortDedupRun {

  /** What to run: input size, repetitions, the budget and the JVM heap the budget implies. */
  record Plan(double gb, int reps) {
    static final String MEMORY = "64m";
    static final String SORT_MEMORY = "64M";

    /** About twice --memory, fixed and pre-touched like every JVM this project measures. */
    static final List<String> JVM_FLAGS = List.of("-Xms160m", "-Xmx160m", "-XX:+AlwaysPreTouch");

    /** The same cap without pre-touch: the pages the job really touches. */
    static final List<String> JVM_FLAGS_LAZY = List.of("-Xmx160m");

    static final double DUPLICATE_SHARE = 0.3;
  }

  private enum Check {
    SEQUENCE,
    SET
  }

  /** One contender: its name, its input, how to build its command, how to check its output. */
  private record Contender(
      String name, boolean json, boolean idem, Check check, List<String> args, boolean lazyHeap) {}

  private record Row(Contender contender, MeasuredProcess.Measurement m, JsonNode stats) {}

  static final String USAGE =
      "usage: idem-bench sort-dedup [--gb G] [--quick] [--reps N]" + " [--tmp DIR] [--out DIR]";

  private final Plan plan;
  private final Path outDir;
  private final Path tmpRoot;
  private final Path idemJar;
  private final String javaBinary;

  SortDedupRun(Plan plan, Path outDir, Path tmpRoot, Path idemJar) {
    this.plan = plan;
    this.outDir = outDir;
    this.tmpRoot = tmpRoot;
    this.idemJar = idemJar;
    this.javaBinary = ProcessHandle.current().info().command().orElse("java");
  }

  /** Parses {@code sort-dedup [--gb G] [--quick] [--reps N] [--tmp DIR] [--out DIR]}. */
  static void main(String[] args) throws IOException, InterruptedException {
    boolean quick = false;
    Double gb = null;
    Integer reps = null;
    Path out = Path.of("bench-results");
    Path tmp = Path.of(System.getProperty("java.io.tmpdir"));
    try {
      for (int i = 1; i < args.length; i++) {
        switch (args[i]) {
          case "--quick" -> quick = true;
          case "--gb" -> gb = Double.parseDouble(args[++i]);
          case "--reps" -> reps = Integer.parseInt(args[++i]);
          case "--tmp" -> tmp = Path.of(args[++i]);
          case "--out" -> out = Path.of(args[++i]);
          default -> throw new IllegalArgumentException("unknown option " + args[i]);
        }
      }
      if (gb != null && !(gb > 0) || reps != null && reps < 1) {
        throw new IllegalArgumentException("--gb and --reps must be positive");
      }
    } catch (IllegalArgumentException | ArrayIndexOutOfBoundsException e) {
      System.err.println("idem-bench sort-dedup: " + e.getMessage() + "\n" + USAGE);
      System.exit(2);
    }
    Plan plan = new Plan(gb != null ? gb : quick ? 0.2 : 2, reps != null ? reps : quick ? 1 : 3);
    Path dir =
        out.resolve(
            "sort-dedup-"
                + java.time.LocalDateTime.now()
                    .format(java.time.format.DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss")));
    Files.createDirectories(dir);
    new SortDedupRun(plan, dir, tmp, Path.of("idem-cli/target/idem.jar"))
        .run(String.join(" ", args));
  }

  void run(String command) throws IOException, InterruptedException {
    long start = System.nanoTime();
    String date = ZonedDateTime.now(ZoneOffset.UTC).toString();
    String loadBefore = MachineInfo.loadAverage();
    Path data =
        Files.createTempDirectory(Files.createDirectories(tmpRoot), "idem-bench-sort-dedup-");
    try {
      Path jar = Files.copy(idemJar, data.resolve("idem.jar")); // a rebuild cannot swap it
      long bytes = (long) (plan.gb() * (1L << 30));
      SortDedupInputs gen = new SortDedupInputs(Plan.DUPLICATE_SHARE, 20261202L);
      long t0 = System.nanoTime();
      SortDedupInputs.Input lines = gen.lines(data.resolve("lines.txt"), bytes);
      SortDedupInputs.Input json = gen.jsonLines(data.resolve("events.jsonl"), bytes);
      ForkRunner.log(
          String.format(
              Locale.ROOT,
              "generated %s and %s in %.0f s",
              describe(lines),
              describe(json),
              (System.nanoTime() - t0) / 1e9));
      MeasuredProcess.Measurement baseline = baseline(jar, data, Plan.JVM_FLAGS);
      MeasuredProcess.Measurement lazyBaseline = baseline(jar, data, Plan.JVM_FLAGS_LAZY);
      ForkRunner.log(
          "JVM baseline (trivial input): "
              + baseline.peakRssKiB() / 1024
              + " MiB RSS"
              + " pre-touched, "
              + lazyBaseline.peakRssKiB() / 1024
              + " MiB not pre-touched");
      List<Contender> contenders = contenders(jar);
      List<Row> rows = new ArrayList<>();
      for (int rep = 1; rep <= plan.reps(); rep++) {
        for (Contender c : contenders) {
          SortDedupInputs.Input in = c.json() ? json : lines;
          warm(in.file());
          rows.add(runOnce(c, in, data, rep));
        }
      }
      String sortVersion = firstLine(List.of("sort", "--version"));
      String commit = firstLine(List.of("git", "rev-parse", "--short", "HEAD"));
      SortDedupReport report = new SortDedupReport(plan, lines, json, baseline, lazyBaseline);
      for (Row r : rows) {
        report.add(
            r.contender().name(),
            r.contender().json(),
            r.contender().idem(),
            r.contender().lazyHeap(),
            r.m(),
            r.stats());
      }
      String wall =
          Duration.ofNanos(System.nanoTime() - start)
              .toString()
              .substring(2)
              .toLowerCase(Locale.ROOT);
      String machine =
          String.format(
              Locale.ROOT,
              "%s, %d cores, JDK %s (%s), GNU %s, commit %s, "
                  + "%s, load %s before / %s after, wall time %s",
              MachineInfo.cpuModel(),
              Runtime.getRuntime().availableProcessors(),
              System.getProperty("java.vm.version"),
              System.getProperty("java.vm.name"),
              sortVersion.replace("sort (GNU coreutils)", "sort"),
              commit,
              date,
              loadBefore,
              MachineInfo.loadAverage(),
              wall);
      String md = report.markdown(command, machine);
      Files.writeString(outDir.resolve("report.md"), md);
      System.out.println(md);
      ForkRunner.log("report: " + outDir.resolve("report.md"));
    } finally {
      deleteTree(data);
    }
  }

  private List<Contender> contenders(Path jar) {
    List<Contender> list = new ArrayList<>();
    // --parallel left at its default: min(8, available processors) = 2 here
    list.add(
        new Contender(
            "LC_ALL=C sort -u -S 64M",
            false,
            false,
            Check.SET,
            List.of("sort", "-u", "-S", Plan.SORT_MEMORY),
            false));
    List<String> lineArgs = List.of("sort-dedup", "--whole-line", "--memory", Plan.MEMORY);
    List<String> none = List.of("--compress-runs", "none");
    List<String> keyOrder = List.of("--order", "key");
    list.add(
        new Contender(
            "idem sort-dedup --whole-line",
            false,
            true,
            Check.SEQUENCE,
            idem(jar, Plan.JVM_FLAGS, lineArgs, List.of()),
            false));
    list.add(
        new Contender(
            "idem sort-dedup --whole-line --order key",
            false,
            true,
            Check.SET,
            idem(jar, Plan.JVM_FLAGS, lineArgs, keyOrder),
            false));
    list.add(
        new Contender(
            "idem sort-dedup --whole-line --compress-runs none",
            false,
            true,
            Check.SEQUENCE,
            idem(jar, Plan.JVM_FLAGS, lineArgs, none),
            false));
    list.add(
        new Contender(
            "idem sort-dedup --whole-line --order key --compress-runs none",
            false,
            true,
            Check.SET,
            idem(
                jar,
                Plan.JVM_FLAGS,
                lineArgs,
                List.of("--order", "key", "--compress-runs", "none")),
            false));
    list.add(
        new Contender(
            "idem sort-dedup --whole-line (heap -Xmx160m, not pre-touched)",
            false,
            true,
            Check.SEQUENCE,
            idem(jar, Plan.JVM_FLAGS_LAZY, lineArgs, List.of()),
            true));
    List<String> keyArgs = List.of("sort-dedup", "--key", "id", "--memory", Plan.MEMORY);
    list.add(
        new Contender(
            "idem sort-dedup --key id",
            true,
            true,
            Check.SEQUENCE,
            idem(jar, Plan.JVM_FLAGS, keyArgs, List.of()),
            false));
    list.add(
        new Contender(
            "idem sort-dedup --key id --order key --compress-runs none",
            true,
            true,
            Check.SET,
            idem(
                jar, Plan.JVM_FLAGS, keyArgs, List.of("--order", "key", "--compress-runs", "none")),
            false));
    return list;
  }

  private List<String> idem(Path jar, List<String> flags, List<String> args, List<String> more) {
    List<String> cmd = new ArrayList<>();
    cmd.add(javaBinary);
    cmd.addAll(flags);
    cmd.add("-jar");
    cmd.add(jar.toString());
    cmd.addAll(args);
    cmd.addAll(more);
    return cmd;
  }

  /** The resident size of the same JVM with the same flags on a one-line input. */
  private MeasuredProcess.Measurement baseline(Path jar, Path data, List<String> flags)
      throws IOException, InterruptedException {
    Path tiny = Files.writeString(data.resolve("tiny.txt"), "a\n");
    Path tmp = Files.createDirectories(data.resolve("tmp-baseline"));
    MeasuredProcess.Measurement m =
        MeasuredProcess.run(
            idem(
                jar,
                flags,
                List.of(
                    "sort-dedup",
                    "--whole-line",
                    "--memory",
                    Plan.MEMORY,
                    "--tmp",
                    tmp.toString(),
                    "-q",
                    tiny.toString()),
                List.of()),
            Map.of(),
            tmp,
            Path.of("/dev/null"),
            outDir);
    if (m.exitStatus() != 0) {
      throw new IOException("baseline run failed: " + m.stderr());
    }
    return m;
  }

  private Row runOnce(Contender c, SortDedupInputs.Input in, Path data, int rep)
      throws IOException, InterruptedException {
    Path tmp = data.resolve("tmp-run");
    deleteTree(tmp);
    Files.createDirectories(tmp);
    Path out = data.resolve("out");
    Path stats = data.resolve("stats.json");
    Files.deleteIfExists(out);
    Files.deleteIfExists(stats);
    List<String> cmd = new ArrayList<>(c.args());
    cmd.addAll(
        c.idem()
            ? List.of(
                "--tmp",
                tmp.toString(),
                "-o",
                out.toString(),
                "--stats-json",
                stats.toString(),
                in.file().toString())
            : List.of("-T", tmp.toString(), "-o", out.toString(), in.file().toString()));
    ForkRunner.log("rep " + rep + ": " + c.name());
    MeasuredProcess.Measurement m =
        MeasuredProcess.run(cmd, Map.of("LC_ALL", "C"), tmp, Path.of("/dev/null"), outDir);
    if (m.exitStatus() != 0) {
      throw new IOException(c.name() + " exited with " + m.exitStatus() + ": " + m.stderr());
    }
    LineDigest got = LineDigest.of(out);
    boolean ok =
        c.check() == Check.SEQUENCE ? got.sameSequence(in.expected()) : got.sameSet(in.expected());
    if (!ok) {
      throw new IOException(
          c.name()
              + ": wrong output: "
              + got.lines()
              + " lines, expected "
              + in.expected().lines()
              + " ("
              + c.check()
              + " check)");
    }
    JsonNode s = c.idem() ? new ObjectMapper().readTree(stats.toFile()) : null;
    ForkRunner.log(
        String.format(
            Locale.ROOT,
            "  %.1f s, %d MiB RSS, temp %d MiB written " + "(polled)%s, output checked (%,d lines)",
            m.seconds(),
            m.peakRssKiB() / 1024,
            m.tempWrittenBytes() >> 20,
            s == null ? "" : ", stats " + s.toString(),
            got.lines()));
    Files.deleteIfExists(out);
    return new Row(c, m, s);
  }

  /** Reads a file once so that every contender finds it in the page cache. */
  private static void warm(Path file) throws IOException {
    byte[] buf = new byte[1 << 20];
    try (InputStream in = Files.newInputStream(file)) {
      while (in.read(buf) >= 0) {
        // only the reading matters
      }
    }
  }

  private static String describe(SortDedupInputs.Input in) {
    return String.format(
        Locale.ROOT,
        "%s (%.2f GiB, %,d records, %,d keys)",
        in.file().getFileName(),
        in.bytes() / (double) (1L << 30),
        in.records(),
        in.keys());
  }

  private static String firstLine(List<String> command) {
    try {
      Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
      String s = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      p.waitFor();
      return s.lines().findFirst().orElse("?").strip();
    } catch (IOException | InterruptedException e) {
      return "?";
    }
  }

  private static void deleteTree(Path dir) throws IOException {
    if (!Files.exists(dir)) {
      return;
    }
    try (Stream<Path> walk = Files.walk(dir)) {
      for (Path p : (Iterable<Path>) walk.sorted(Comparator.reverseOrder())::iterator) {
        Files.deleteIfExists(p);
      }
    }
  }
}
