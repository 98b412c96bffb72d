package dev.idem.bench;

import java.io.IOException;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * {@code serve}: idem serve against redis-server (appendonly yes, appendfsync everysec) as the
 * seen-set of workers, the same client ({@link RespClient}) and pipeline for both. N distinct ids
 * in batches: {@code IDEM.FIRSTSEEN} with an {@code IDEM.COMMIT} every second, against {@code
 * SADD}; ids per second, and the server's resident memory once every id is in. Then the PING round
 * trip (one request at a time) of each, and idem's BF.ADD and BF.EXISTS pipelined. The oracle: the
 * server called every id new exactly once (the sum of the replies is N), and a second pass over 1 %
 * of the ids finds them all seen.
 */
final class ServeScenario extends Scenario {

  ServeScenario() {
    super(
        "serve",
        10_000_000,
        "idem serve (IDEM.FIRSTSEEN, commits every second) against redis-server (SADD,"
            + " appendfsync everysec): ids/s and RSS at N ids, PING round trip, BF.ADD/BF.EXISTS."
            + " --set batch=1000 --set depth=8 --set heap=256m.");
  }

  @Override
  void run(Bench b) throws Exception {
    int batch = Integer.parseInt(b.option("batch", "1000"));
    int depth = Integer.parseInt(b.option("depth", "8"));
    String heap = b.option("heap", "256m");
    List<String> names = b.only.isEmpty() ? List.of("idem-serve", "redis-server") : b.only;
    for (int rep = 1; rep <= b.reps; rep++) {
      for (String name : Bench.rotation(names, rep)) {
        if (name.equals("redis-server") && !ProcessHarness.Redis.available()) {
          b.note("skipped redis-server: it is not installed");
          continue;
        }
        Path dir = b.fresh("serve-" + name);
        int port;
        try (ServerSocket s = new ServerSocket(0)) {
          port = s.getLocalPort();
        }
        Process server = startServer(name, dir, port, heap);
        try {
          waitForPing(port);
          Map<String, Object> metrics = new LinkedHashMap<>();
          boolean idem = name.equals("idem-serve");
          long t0 = System.nanoTime();
          long fresh = load(port, b.size, batch, depth, idem);
          double wall = (System.nanoTime() - t0) / 1e9;
          long again = recheck(port, b.size, batch, idem);
          long rss = rssKiB(server.pid());
          metrics.put("ids_per_s", Math.round(b.size / wall));
          metrics.put("rss_mib", rss / 1024);
          metrics.put("ping_rtt_us", pingMicros(port, 20_000));
          if (idem) {
            metrics.put("bf_add_per_s", bloom(port, "BF.ADD", 1_000_000));
            metrics.put("bf_exists_per_s", bloom(port, "BF.EXISTS", 1_000_000));
          }
          long checked = Math.max(1, b.size / 100);
          boolean correct = fresh == b.size && again == 0;
          String check =
              String.format(
                  Locale.ROOT,
                  "new %,d of %,d; second pass over %,d ids: %,d new",
                  fresh,
                  b.size,
                  checked,
                  again);
          ProcessHarness.Outcome o =
              new ProcessHarness.Outcome(
                  0, wall, cpuSeconds(server.pid()), rss, -1, false, List.of(), "");
          Bench.log(name + ": " + metrics + ", " + check);
          b.record("serve", "", name, rep, o, correct, check, "redis-server", metrics);
        } finally {
          stop(server, port, name);
        }
      }
    }
  }

  private static Process startServer(String name, Path dir, int port, String heap)
      throws IOException {
    List<String> cmd = new ArrayList<>();
    ProcessBuilder pb;
    if (name.equals("idem-serve")) {
      cmd.addAll(
          List.of(
              Path.of("bin/idem").toAbsolutePath().toString(),
              "serve",
              "--state",
              dir.resolve("state").toString(),
              "--port",
              Integer.toString(port)));
      pb = new ProcessBuilder(cmd);
      pb.environment()
          .put(
              "IDEM_JAVA_OPTS",
              Contender.heapFlags(heap)
                  + " "
                  + System.getenv().getOrDefault("IDEM_SERVE_OPTS", ""));
    } else {
      cmd.addAll(
          List.of(
              "redis-server",
              "--port",
              Integer.toString(port),
              "--bind",
              "127.0.0.1",
              "--dir",
              dir.toString(),
              "--save",
              "",
              "--appendonly",
              "yes",
              "--appendfsync",
              "everysec",
              "--protected-mode",
              "no"));
      pb = new ProcessBuilder(cmd);
    }
    return pb.redirectErrorStream(true).redirectOutput(dir.resolve("server.log").toFile()).start();
  }

  private static void waitForPing(int port) throws Exception {
    for (int i = 0; i < 600; i++) {
      try (RespClient c = new RespClient(port)) {
        c.send("PING");
        c.flush();
        c.read();
        return;
      } catch (IOException e) {
        Thread.sleep(100);
      }
    }
    throw new IOException("the server on port " + port + " did not answer");
  }

  /** Id i: distinct for distinct i, spread like hashes, about 20 bytes. */
  static byte[] id(long i) {
    long x = i * 0x9E3779B97F4A7C15L;
    x ^= x >>> 31;
    return ("id-" + Long.toHexString(x) + "-" + i).getBytes(StandardCharsets.US_ASCII);
  }

  /** Sends every id once; returns the number the server called new. */
  private static long load(int port, long n, int batch, int depth, boolean idem)
      throws IOException {
    String[] head =
        idem ? new String[] {"IDEM.FIRSTSEEN", "bench"} : new String[] {"SADD", "bench"};
    long fresh = 0;
    long inFlight = 0;
    long lastCommit = System.nanoTime();
    try (RespClient c = new RespClient(port)) {
      if (idem) { // the key count is known, as it is to SADD's user sizing nothing
        c.send("IDEM.RESERVE", "bench", "EXPECTED", Long.toString(n));
        c.flush();
        c.read();
      }
      byte[][] ids = new byte[batch][];
      for (long from = 0; from < n; from += batch) {
        int k = (int) Math.min(batch, n - from);
        if (k != ids.length) {
          ids = new byte[k][];
        }
        for (int i = 0; i < k; i++) {
          ids[i] = id(from + i);
        }
        c.send(head, ids);
        inFlight++;
        if (idem && System.nanoTime() - lastCommit > 1_000_000_000L) {
          c.send("IDEM.COMMIT", "bench", Long.toString(from + k));
          inFlight++;
          lastCommit = System.nanoTime();
        }
        if (inFlight >= depth) {
          c.flush();
          while (inFlight > depth / 2) {
            fresh += c.read();
            inFlight--;
          }
        }
      }
      if (idem) {
        c.send("IDEM.COMMIT", "bench", Long.toString(n));
        inFlight++;
      }
      c.flush();
      while (inFlight > 0) {
        fresh += c.read();
        inFlight--;
      }
    }
    return fresh;
  }

  /** Sends 1 % of the ids again (the set must answer "seen" for each); returns those called new. */
  private static long recheck(int port, long n, int batch, boolean idem) throws IOException {
    String[] head =
        idem ? new String[] {"IDEM.FIRSTSEEN", "bench"} : new String[] {"SADD", "bench"};
    long fresh = 0;
    try (RespClient c = new RespClient(port)) {
      long step = 100;
      List<byte[]> ids = new ArrayList<>();
      for (long i = 0; i < n; i += step) {
        ids.add(id(i));
        if (ids.size() == batch) {
          c.send(head, ids.toArray(new byte[0][]));
          c.flush();
          fresh += c.read();
          ids.clear();
        }
      }
      if (!ids.isEmpty()) {
        c.send(head, ids.toArray(new byte[0][]));
        c.flush();
        fresh += c.read();
      }
    }
    return fresh;
  }

  /** The median round trip of one PING at a time, in microseconds. */
  private static double pingMicros(int port, int count) throws IOException {
    long[] t = new long[count];
    try (RespClient c = new RespClient(port)) {
      for (int i = 0; i < count; i++) {
        long t0 = System.nanoTime();
        c.send("PING");
        c.flush();
        c.read();
        t[i] = System.nanoTime() - t0;
      }
    }
    java.util.Arrays.sort(t);
    return Math.round(t[count / 2] / 100.0) / 10.0;
  }

  /** {@code command bloom item} for {@code n} items, 64 in flight; returns commands per second. */
  private static long bloom(int port, String command, int n) throws IOException {
    long t0 = System.nanoTime();
    try (RespClient c = new RespClient(port)) {
      int inFlight = 0;
      for (int i = 0; i < n; i++) {
        c.send(command, "bloom", "item-" + i);
        if (++inFlight == 64) {
          c.flush();
          while (inFlight > 32) {
            c.read();
            inFlight--;
          }
        }
      }
      c.flush();
      while (inFlight-- > 0) {
        c.read();
      }
    }
    return Math.round(n / ((System.nanoTime() - t0) / 1e9));
  }

  private static void stop(Process server, int port, String name) throws Exception {
    try (RespClient c = new RespClient(port)) {
      c.send(
          name.equals("idem-serve")
              ? new String[] {"SHUTDOWN"}
              : new String[] {"SHUTDOWN", "NOSAVE"});
      c.flush();
    } catch (IOException e) {
      // gone already
    }
    if (!server.waitFor(120, TimeUnit.SECONDS)) {
      server.destroyForcibly().waitFor();
    }
  }

  static long rssKiB(long pid) throws IOException {
    long rss = 0;
    for (ProcessHandle h :
        (Iterable<ProcessHandle>)
            java.util.stream.Stream.concat(
                    ProcessHandle.of(pid).stream(),
                    ProcessHandle.of(pid).stream().flatMap(ProcessHandle::descendants))
                ::iterator) {
      Path status = Path.of("/proc/" + h.pid() + "/status");
      if (Files.exists(status)) {
        for (String line : Files.readAllLines(status)) {
          if (line.startsWith("VmRSS:")) {
            rss = Math.max(rss, Long.parseLong(line.replaceAll("\\D", "")));
          }
        }
      }
    }
    return rss;
  }

  static double cpuSeconds(long pid) {
    double total = 0;
    for (ProcessHandle h :
        (Iterable<ProcessHandle>)
            java.util.stream.Stream.concat(
                    ProcessHandle.of(pid).stream(),
                    ProcessHandle.of(pid).stream().flatMap(ProcessHandle::descendants))
                ::iterator) {
      total += h.info().totalCpuDuration().map(d -> d.toMillis() / 1000.0).orElse(0.0);
    }
    return total;
  }
}
