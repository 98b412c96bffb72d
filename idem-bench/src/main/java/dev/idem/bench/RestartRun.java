package dev.idem.bench;

import java.io.BufferedReader;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import redis.clients.jedis.Jedis;

/**
 * {@code bin/idem-bench restart [--ids N,N] [--reps N] [--only NAME,NAME] [--quick] [--work DIR]
 * [--out DIR]}: issue #17's seed scenario. For each N and each contender ({@link RestartWorker}): a
 * worker processes the {@link RestartStream} of N ids until 70 % of them are done and is killed
 * there (SIGKILL, mid-flight: marks since its last commit are lost); then, {@code reps} times from
 * a copy of what the kill left, a new worker opens the state, answers for the first message, and
 * finishes the stream. Measured per restart: time to the first answer from the spawn (JVM start
 * included) and from the open call (the worker's own clock), peak RSS of the restarted worker
 * ({@code /usr/bin/time}), reads of the exact tier per new id, and its decisions against the ground
 * truth (missed: a redelivery processed again; repeated: a new id skipped); the final output is
 * compared with the right one line by line.
 *
 * <p>Every worker JVM runs with a fixed, pre-touched heap ({@code -Xms} = {@code -Xmx}, {@code
 * -XX:+AlwaysPreTouch}, THP requested). Pre-touching happens before {@code main}: it counts in the
 * time from the spawn, not in the time from the open call.
 */
final class RestartRun {

  static final String USAGE =
      "idem-bench restart [--ids N,N] [--reps N] "
          + "[--only idem,rocksdb,hashset,redis] [--quick] [--commit-every N] [--work DIR] [--out DIR]";
  static final List<String> CONTENDERS = List.of("idem", "rocksdb", "hashset", "redis");
  static final long MAX_MEMORY = 256L << 20;
  static final String SMALL_HEAP = "256m";

  /** Scales, restarts per contender and scale, contenders, commit interval (messages). */
  record Plan(List<Long> ids, int reps, List<String> only, int commitEvery) {}

  /** What one restart measured. */
  record Restart(
      double spawnToFirst,
      double openToFirst,
      double mainToFirst,
      long peakRssKiB,
      double wallSeconds,
      Map<String, String> result,
      boolean outputRight,
      String outputNote,
      long serverRssKiB) {}

  /** One contender at one scale. */
  record Row(
      long n,
      String contender,
      String heap,
      double loadSeconds,
      long loadMessages,
      long stateBytes,
      String stateNote,
      List<Restart> restarts,
      String failure) {}

  static void main(String[] args) throws Exception {
    List<Long> ids = null;
    Integer reps = null;
    boolean quick = false;
    List<String> only = CONTENDERS;
    int commitEvery = 10_000;
    Path out = Path.of("bench-results");
    Path work = null;
    try {
      for (int i = 1; i < args.length; i++) {
        switch (args[i]) {
          case "--ids" ->
              ids =
                  Arrays.stream(args[++i].split(","))
                      .map(s -> Long.parseLong(s.trim().replace("_", "")))
                      .toList();
          case "--reps" -> reps = Integer.parseInt(args[++i]);
          case "--only" -> only = List.of(args[++i].split(","));
          case "--quick" -> quick = true;
          case "--commit-every" -> commitEvery = Integer.parseInt(args[++i].replace("_", ""));
          case "--work" -> work = Path.of(args[++i]);
          case "--out" -> out = Path.of(args[++i]);
          default -> throw new IllegalArgumentException("unknown option " + args[i]);
        }
      }
      if (!CONTENDERS.containsAll(only)) {
        throw new IllegalArgumentException("--only takes " + String.join(",", CONTENDERS));
      }
      if (commitEvery % RestartWorker.BATCH != 0) {
        throw new IllegalArgumentException(
            "--commit-every must be a multiple of " + RestartWorker.BATCH);
      }
    } catch (RuntimeException e) {
      System.err.println("restart: " + e.getMessage() + "\nusage: " + USAGE);
      System.exit(2);
    }
    if (ids == null) {
      ids = quick ? List.of(1_000_000L) : List.of(10_000_000L, 100_000_000L);
    }
    Plan plan = new Plan(ids, reps != null ? reps : 3, only, commitEvery);
    String stamp = LocalDateTime.now().format(DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss"));
    Path dir = Files.createDirectories(out.resolve("restart-" + stamp));
    if (work == null) {
      work = Files.createTempDirectory("idem-restart-");
    }
    new RestartRun(plan, dir, work).run(String.join(" ", args));
  }

  private final Plan plan;
  private final Path outDir;
  private final Path work;
  private final String java;
  private final String classPath;
  private final MachineInfo machine = new MachineInfo();

  RestartRun(Plan plan, Path outDir, Path work) throws IOException {
    this.plan = plan;
    this.outDir = outDir;
    this.work = Files.createDirectories(work);
    this.java = ProcessHandle.current().info().command().orElse("java");
    this.classPath = System.getProperty("java.class.path");
  }

  /** The heap of a contender's worker: the HashSet holds every id, the others a few MiB. */
  static String heap(String contender, long n) {
    if (!contender.equals("hashset")) {
      return SMALL_HEAP;
    }
    // ~110 B per 20-char id in a HashSet (String, byte[], node, table), and room for G1
    long gib = Math.min(16, Math.max(1, (n * 160 + (1L << 30) - 1) >> 30) + 1);
    return gib + "g";
  }

  private List<String> javaCommand(String heap) {
    return new ArrayList<>(
        List.of(
            java,
            "-Xms" + heap,
            "-Xmx" + heap,
            "-XX:+AlwaysPreTouch",
            ForkRunner.THP_FLAG,
            "-Xlog:disable",
            "-Xlog:all=warning:stderr",
            "-cp",
            classPath));
  }

  void run(String command) throws Exception {
    long t0 = System.nanoTime();
    String loadBefore = MachineInfo.loadAverage();
    String started = LocalDateTime.now().withNano(0).toString();
    ForkRunner.log("results and logs go to " + outDir + "; scratch " + work);
    machine.startSampling();
    long jvmBaseline = jvmBaselineKiB();
    ForkRunner.log(
        "JVM baseline (-Xmx"
            + SMALL_HEAP
            + ", pre-touched, idle): "
            + jvmBaseline / 1024
            + " MiB RSS");
    List<Row> rows = new ArrayList<>();
    for (long n : plan.ids()) {
      for (String c : plan.only()) {
        Row row;
        try {
          row = contender(n, c);
        } catch (Exception e) {
          ForkRunner.log("  " + c + " at " + n + " failed: " + e);
          row = new Row(n, c, heap(c, n), -1, 0, -1, "", List.of(), e.getMessage());
        }
        rows.add(row);
        // write what we have after every row: a long run stopped midway keeps its numbers
        writeReport(command, started, loadBefore, jvmBaseline, rows, t0);
      }
    }
    machine.stop();
    String report = writeReport(command, started, loadBefore, jvmBaseline, rows, t0);
    E2eRun.deleteTree(work);
    System.out.print(report);
  }

  /** Load once, then {@code reps} restarts from copies of what the kill left. */
  private Row contender(long n, String c) throws Exception {
    RestartStream stream = new RestartStream(n);
    Path cdir = work.resolve(n + "-" + c);
    E2eRun.deleteTree(cdir);
    Path pristine = Files.createDirectories(cdir.resolve("pristine"));
    Path state = pristine.resolve("state");
    Path output = pristine.resolve("out.txt");
    Path log = outDir.resolve(n + "-" + c + ".log");
    String heap = heap(c, n);
    Redis redis =
        c.equals("redis")
            ? Redis.start(Files.createDirectories(cdir.resolve("redis")), null)
            : null;
    double loadSeconds;
    long stateBytes;
    long loadMessages;
    try {
      ForkRunner.log(
          String.format(Locale.ROOT, "%s, N = %,d: load to 70 %% and kill (heap %s)", c, n, heap));
      Path stdout = cdir.resolve("load.stdout");
      ChildRun load =
          new ChildRun(command(c, "load", n, state, output, heap, redis), stdout, log)
              .stdoutTo(stdout);
      ChildRun.Outcome o = load.run(0, 1);
      if (!o.killed()) {
        throw new IOException(
            c
                + ": the load worker ended (exit "
                + o.exitCode()
                + ") before it was killed; see "
                + log);
      }
      loadSeconds = o.wallSeconds();
      String kp = Files.readString(stdout).trim();
      loadMessages = Long.parseLong(kp.substring(kp.indexOf(' ') + 1));
      ForkRunner.log(
          String.format(
              Locale.ROOT,
              "  killed at %.1f s (kill point: message %,d of " + "%,d; %,.0f messages/s)",
              loadSeconds,
              loadMessages,
              stream.messages(),
              loadMessages / loadSeconds));
      if (redis != null) {
        redis.save();
        stateBytes = redis.usedMemory();
        redis.stop();
      } else {
        stateBytes = du(state);
      }
    } finally {
      if (redis != null) {
        redis.stop();
      }
    }
    String note =
        switch (c) {
          case "idem" -> probe(n, cdir, state, log);
          case "rocksdb" ->
              String.format(
                  Locale.ROOT,
                  "wal_mib=%.1f sst_mib=%.1f",
                  bytesOf(state, ".log") / 1048576.0,
                  bytesOf(state, ".sst") / 1048576.0);
          default -> "";
        };
    if (!note.isEmpty()) {
      ForkRunner.log("  state after the kill: " + note);
    }
    List<Restart> restarts = new ArrayList<>();
    for (int r = 0; r < plan.reps(); r++) {
      restarts.add(restart(c, n, cdir, pristine, heap, log, r));
    }
    E2eRun.deleteTree(cdir);
    return new Row(n, c, heap, loadSeconds, loadMessages, stateBytes, note, restarts, null);
  }

  private Restart restart(String c, long n, Path cdir, Path pristine, String heap, Path log, int r)
      throws Exception {
    Path run = cdir.resolve("run");
    E2eRun.deleteTree(run);
    Files.createDirectories(run);
    Path state = run.resolve("state");
    Path output = run.resolve("out.txt");
    copyTree(pristine.resolve("state"), state);
    Files.copy(pristine.resolve("out.txt"), output, StandardCopyOption.REPLACE_EXISTING);
    Redis redis = c.equals("redis") ? Redis.start(cdir.resolve("redis"), "dump.rdb") : null;
    try {
      Path stdout = run.resolve("restart.stdout");
      ChildRun child =
          new ChildRun(command(c, "restart", n, state, output, heap, redis), stdout, log)
              .stdoutTo(stdout);
      ChildRun.Outcome o = child.run(0, 0);
      if (o.exitCode() != 0) {
        throw new IOException(
            c + ": the restarted worker failed (exit " + o.exitCode() + "); see " + log);
      }
      List<String> lines = Files.readAllLines(stdout);
      String[] first =
          lines.stream().filter(l -> l.startsWith("FIRST ")).findFirst().orElseThrow().split(" ");
      Map<String, String> result = new LinkedHashMap<>();
      for (String w :
          lines.stream()
              .filter(l -> l.startsWith("RESULT "))
              .findFirst()
              .orElseThrow()
              .substring(7)
              .split(" ")) {
        int eq = w.indexOf('=');
        if (eq > 0) {
          result.put(w.substring(0, eq), w.substring(eq + 1));
        }
      }
      result.put("first_answer", first[3]);
      String[] check = checkOutput(output, n);
      long serverRss = redis == null ? -1 : redis.peakRssKiB();
      Restart res =
          new Restart(
              o.firstNewOutputSeconds(),
              Long.parseLong(first[1]) / 1e9,
              Long.parseLong(first[2]) / 1e9,
              o.peakRssKiB(),
              o.wallSeconds(),
              result,
              check[0].equals("yes"),
              check[1],
              serverRss);
      ForkRunner.log(
          String.format(
              Locale.ROOT,
              "  restart %d: first answer %.3f s from spawn, "
                  + "%.3f s from open; peak RSS %,d MiB; finished in %.1f s; %s; output %s",
              r + 1,
              res.spawnToFirst(),
              res.openToFirst(),
              o.peakRssKiB() / 1024,
              o.wallSeconds(),
              result,
              check[1]));
      return res;
    } finally {
      if (redis != null) {
        redis.stop();
      }
      E2eRun.deleteTree(run);
    }
  }

  /** {@link RestartOpenProbe} on a copy of idem's state as the kill left it. */
  private String probe(long n, Path cdir, Path state, Path log) throws Exception {
    Path copy = cdir.resolve("probe");
    E2eRun.deleteTree(copy);
    copyTree(state, copy);
    Path stdout = cdir.resolve("probe.stdout");
    List<String> cmd = javaCommand(SMALL_HEAP);
    cmd.addAll(
        List.of(
            RestartOpenProbe.class.getName(),
            copy.toString(),
            Long.toString(n),
            Long.toString(MAX_MEMORY)));
    new ChildRun(cmd, stdout, log).stdoutTo(stdout).run(0, 0);
    E2eRun.deleteTree(copy);
    return Files.readAllLines(stdout).stream()
        .filter(l -> l.startsWith("PROBE "))
        .map(l -> l.substring(6))
        .findFirst()
        .orElse("probe failed, see " + log);
  }

  static long bytesOf(Path dir, String suffix) throws IOException {
    if (!Files.exists(dir)) {
      return 0;
    }
    try (Stream<Path> s = Files.walk(dir)) {
      return s.filter(p -> p.getFileName().toString().endsWith(suffix))
          .mapToLong(
              p -> {
                try {
                  return Files.size(p);
                } catch (IOException e) {
                  return 0;
                }
              })
          .sum();
    }
  }

  private List<String> command(
      String c, String phase, long n, Path state, Path output, String heap, Redis redis) {
    List<String> cmd = javaCommand(heap);
    cmd.addAll(
        List.of(
            RestartWorker.class.getName(),
            c,
            phase,
            Long.toString(n),
            state.toString(),
            output.toString(),
            Long.toString(MAX_MEMORY),
            Integer.toString(plan.commitEvery())));
    if (redis != null) {
      cmd.add(Integer.toString(redis.port));
    }
    return cmd;
  }

  /** RSS of an idle worker JVM with the small heap: the "JVM" of the RSS bound. */
  private long jvmBaselineKiB() throws IOException, InterruptedException {
    Path dir = Files.createDirectories(work.resolve("baseline"));
    Path stdout = dir.resolve("stdout");
    List<String> cmd = javaCommand(SMALL_HEAP);
    cmd.addAll(List.of(RestartWorker.class.getName(), "--idle"));
    ChildRun.Outcome o = new ChildRun(cmd, stdout, dir.resolve("log")).stdoutTo(stdout).run(0, 0);
    return o.peakRssKiB();
  }

  /** Is the output exactly id(0) … id(N-1), one per line? {"yes"/"no", a note}. */
  static String[] checkOutput(Path output, long n) throws IOException {
    long line = 0;
    long wrong = 0;
    String firstWrong = null;
    try (BufferedReader r = Files.newBufferedReader(output, StandardCharsets.US_ASCII)) {
      for (String s = r.readLine(); s != null; s = r.readLine()) {
        if (line >= n || !s.equals(RestartStream.id(line))) {
          wrong++;
          if (firstWrong == null) {
            firstWrong = "line " + (line + 1);
          }
        }
        line++;
      }
    }
    boolean right = line == n && wrong == 0;
    return new String[] {
      right ? "yes" : "no",
      right
          ? String.format(Locale.ROOT, "= the %,d ids in order", n)
          : String.format(
              Locale.ROOT,
              "%,d lines for %,d ids, " + "%,d wrong (first at %s)",
              line,
              n,
              wrong,
              firstWrong)
    };
  }

  static long du(Path dir) throws IOException {
    if (!Files.exists(dir)) {
      return 0;
    }
    try (Stream<Path> s = Files.walk(dir)) {
      return s.filter(Files::isRegularFile)
          .mapToLong(
              p -> {
                try {
                  return Files.size(p);
                } catch (IOException e) {
                  return 0;
                }
              })
          .sum();
    }
  }

  static void copyTree(Path from, Path to) throws IOException {
    if (!Files.exists(from)) {
      return;
    }
    try (Stream<Path> s = Files.walk(from)) {
      for (Path p : s.toList()) {
        Path t = to.resolve(from.relativize(p).toString());
        if (Files.isDirectory(p)) {
          Files.createDirectories(t);
        } else {
          Files.copy(p, t, StandardCopyOption.COPY_ATTRIBUTES);
        }
      }
    }
  }

  /** A loopback redis-server of the harness's own, without persistence but for SAVE. */
  static final class Redis {
    final int port;
    private final Process process;
    private final Path dir;

    private Redis(int port, Process process, Path dir) {
      this.port = port;
      this.process = process;
      this.dir = dir;
    }

    /** Starts one in {@code dir}, loading {@code rdb} there when not null; waits until loaded. */
    static Redis start(Path dir, String rdb) throws IOException, InterruptedException {
      int port;
      try (ServerSocket s = new ServerSocket(0)) {
        port = s.getLocalPort();
      }
      Process p =
          new ProcessBuilder(
                  "redis-server",
                  "--port",
                  Integer.toString(port),
                  "--bind",
                  "127.0.0.1",
                  "--save",
                  "",
                  "--appendonly",
                  "no",
                  "--dir",
                  dir.toString(),
                  "--dbfilename",
                  rdb != null ? rdb : "dump.rdb")
              .redirectErrorStream(true)
              .redirectOutput(ProcessBuilder.Redirect.appendTo(dir.resolve("redis.log").toFile()))
              .start();
      Redis redis = new Redis(port, p, dir);
      redis.awaitReady();
      return redis;
    }

    private void awaitReady() throws IOException, InterruptedException {
      long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(20);
      while (System.nanoTime() < deadline) {
        try (Socket s = new Socket("127.0.0.1", port);
            Jedis j = new Jedis("127.0.0.1", port, 600_000)) {
          if ("PONG".equals(j.ping())) {
            return;
          }
        } catch (IOException | RuntimeException notYet) {
          // not listening yet, or still loading the RDB (-LOADING)
        }
        if (!process.isAlive()) {
          throw new IOException("redis-server exited; see " + dir.resolve("redis.log"));
        }
        Thread.sleep(100);
      }
      throw new IOException("redis-server did not come up; see " + dir.resolve("redis.log"));
    }

    void save() {
      try (Jedis j = new Jedis("127.0.0.1", port, 1_800_000)) {
        j.save();
      }
    }

    long usedMemory() {
      try (Jedis j = new Jedis("127.0.0.1", port, 60_000)) {
        return j.info("memory")
            .lines()
            .filter(l -> l.startsWith("used_memory:"))
            .findFirst()
            .map(l -> Long.parseLong(l.substring("used_memory:".length()).strip()))
            .orElse(-1L);
      }
    }

    /** The server's peak RSS so far (VmHWM). */
    long peakRssKiB() {
      try {
        for (String l : Files.readAllLines(Path.of("/proc/" + process.pid() + "/status"))) {
          if (l.startsWith("VmHWM:")) {
            return Long.parseLong(l.replaceAll("[^0-9]", ""));
          }
        }
      } catch (IOException e) {
        return -1;
      }
      return -1;
    }

    void stop() throws InterruptedException {
      if (process.isAlive()) {
        process.destroy(); // SIGTERM: with --save "" nothing is written
        if (!process.waitFor(2, TimeUnit.MINUTES)) {
          process.destroyForcibly();
          process.waitFor();
        }
      }
    }
  }

  // ---------------------------------------------------------------------------------------------
  // report

  private String writeReport(
      String command, String started, String loadBefore, long jvmKiB, List<Row> rows, long t0)
      throws IOException {
    StringBuilder b = new StringBuilder();
    b.append("# idem-bench ").append(command).append("\n\n");
    b.append("- Machine: ")
        .append(MachineInfo.summary())
        .append("; ")
        .append(Runtime.getRuntime().maxMemory() >> 20)
        .append(" MiB harness heap\n");
    b.append("- Started ")
        .append(started)
        .append(", load average before ")
        .append(loadBefore)
        .append("; ")
        .append(machine.thpLine())
        .append('\n');
    b.append(
        String.format(
            Locale.ROOT,
            "- Stream: N distinct ids, each of 10 messages 7 new "
                + "ids and 3 redeliveries of an earlier id; killed at the message of new id 0.7 N; "
                + "commit every %,d messages; batches of %d; maxMemory / block cache %d MiB; %d "
                + "restarts per row (medians)%n",
            plan.commitEvery(),
            RestartWorker.BATCH,
            MAX_MEMORY >> 20,
            plan.reps()));
    b.append(
        "- Worker JVMs: -Xms = -Xmx (column heap), -XX:+AlwaysPreTouch, "
            + ForkRunner.THP_FLAG
            + "; an idle worker JVM with -Xmx"
            + SMALL_HEAP
            + " peaks at "
            + jvmKiB / 1024
            + " MiB RSS\n\n");
    b.append(table(rows, jvmKiB));
    b.append(details(rows));
    b.append(
        String.format(
            Locale.ROOT,
            "%n- Wall time %.1f min; load average after %s%n",
            (System.nanoTime() - t0) / 6e10,
            MachineInfo.loadAverage()));
    String s = b.toString();
    Files.writeString(outDir.resolve("report.md"), s);
    return s;
  }

  static String table(List<Row> rows, long jvmKiB) {
    StringBuilder b = new StringBuilder();
    b.append(
        "| N | contender | heap | load to 70 % (s) | state after kill | first answer from "
            + "spawn | from open call | × idem (from open) | peak RSS restarted | exact-tier reads "
            + "per new id | missed | repeated | output right | restart to end (s) |\n");
    b.append("|---:|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|---:|\n");
    Map<Long, Double> idemOpen = new HashMap<>();
    for (Row r : rows) {
      if (r.contender().equals("idem") && !r.restarts().isEmpty()) {
        idemOpen.put(r.n(), median(r.restarts(), Restart::openToFirst));
      }
    }
    for (Row r : rows) {
      if (r.failure() != null || r.restarts().isEmpty()) {
        b.append(
            String.format(
                Locale.ROOT,
                "| %s | %s | %s | failed: %s |||||||||||%n",
                ResultTable.count(r.n()),
                r.contender(),
                r.heap(),
                r.failure() == null ? "no restart" : r.failure().replace('|', '/')));
        continue;
      }
      List<Restart> rs = r.restarts();
      double open = median(rs, Restart::openToFirst);
      Double idem = idemOpen.get(r.n());
      long newChecked = sum(rs, "new_checked");
      long readsNew = sum(rs, "reads_new");
      long missed = sum(rs, "missed");
      long repeated = sum(rs, "repeated");
      boolean allRight = rs.stream().allMatch(Restart::outputRight);
      String reads =
          r.contender().equals("hashset")
              ? "0 (in heap)"
              : String.format(Locale.ROOT, "%.5f", (double) readsNew / newChecked);
      String rss =
          String.format(Locale.ROOT, "%,d MiB", (long) median(rs, x -> x.peakRssKiB() / 1024.0));
      if (r.contender().equals("redis")) {
        rss +=
            String.format(
                Locale.ROOT,
                " + server %,d MiB",
                (long) median(rs, x -> x.serverRssKiB() / 1024.0));
      }
      b.append(
          String.format(
              Locale.ROOT,
              "| %s | %s | %s | %.0f | %s | %s | %s | %s | %s | %s | %,d | %,d | %s | %.0f |%n",
              ResultTable.count(r.n()),
              r.contender(),
              r.heap(),
              r.loadSeconds(),
              r.contender().equals("redis")
                  ? mib(r.stateBytes()) + " used_memory"
                  : mib(r.stateBytes()) + " on disk",
              secs(median(rs, Restart::spawnToFirst)),
              secs(open),
              idem == null ? "–" : String.format(Locale.ROOT, "%.1f×", open / idem),
              rss,
              reads,
              missed,
              repeated,
              allRight ? "yes" : "**no**",
              median(rs, Restart::wallSeconds)));
    }
    b.append(
        "\nMissed and repeated are summed over the restarts (each restart decides "
            + "~30 % of the stream); exact-tier reads per new id likewise (idem: filter false "
            + "positives sent to RocksDB; RocksDB alone: one get per id; Redis: one SISMEMBER per id)."
            + "\n");
    return b.toString();
  }

  /** Every restart of every row: the times and the worker's own counters. */
  static String details(List<Row> rows) {
    StringBuilder b = new StringBuilder("\n### Each restart\n\n");
    for (Row r : rows) {
      if (r.restarts().isEmpty()) {
        continue;
      }
      b.append(
          String.format(
              Locale.ROOT,
              "- %s %s (load: killed after %.1f s at message %,d)" + "%s:%n",
              ResultTable.count(r.n()),
              r.contender(),
              r.loadSeconds(),
              r.loadMessages(),
              r.stateNote().isEmpty() ? "" : "; after the kill: " + r.stateNote()));
      for (Restart x : r.restarts()) {
        Map<String, String> m = new LinkedHashMap<>(x.result());
        b.append(
            String.format(
                Locale.ROOT,
                "  - first answer %.3f s from spawn, %.3f s from "
                    + "open (%.3f s from main), peak RSS %,d MiB%s, to the end %.1f s; output %s; %s%n",
                x.spawnToFirst(),
                x.openToFirst(),
                x.mainToFirst(),
                x.peakRssKiB() / 1024,
                x.serverRssKiB() < 0
                    ? ""
                    : String.format(Locale.ROOT, " (server %,d MiB)", x.serverRssKiB() / 1024),
                x.wallSeconds(),
                x.outputNote(),
                m));
      }
    }
    return b.toString();
  }

  private static String mib(long bytes) {
    return bytes < 0 ? "–" : String.format(Locale.ROOT, "%,d MiB", bytes >> 20);
  }

  private static String secs(double s) {
    return s < 0
        ? "–"
        : s < 10
            ? String.format(Locale.ROOT, "%.3f s", s)
            : String.format(Locale.ROOT, "%.1f s", s);
  }

  static double median(List<Restart> rs, java.util.function.ToDoubleFunction<Restart> f) {
    return ResultTable.median(rs.stream().mapToDouble(f).toArray());
  }

  static long sum(List<Restart> rs, String key) {
    return rs.stream().mapToLong(x -> ResumeBenchmark.parse(x.result().get(key))).sum();
  }
}
