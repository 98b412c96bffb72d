package dev.idem.bench;

import dev.idem.core.Fingerprint;
import dev.idem.core.Fingerprinter;
import dev.idem.core.filter.FingerprintSet;
import dev.idem.core.shared.SharedSeenSet;
import dev.idem.core.shared.SharedTag;
import dev.idem.engine.Deduplicator;
import dev.idem.engine.Idem;
import dev.idem.redis.RedisSeenSet;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import redis.clients.jedis.Jedis;

/**
 * {@code bin/idem-bench redis [--records N] [--out DIR]}: the shared Redis tier against a plain
 * Redis set with one {@code SISMEMBER} + {@code SADD} per record (the central Redis set of the 500
 * M-record restart case: ~85 GB, 280,000 lookups/s) and against local two-tier dedup, on one
 * loopback redis-server this run starts. Reports records/s, Redis commands and round trips per
 * record, and Redis bytes per distinct key ({@code used_memory} before and after, after {@code
 * FLUSHALL}).
 */
final class RedisRun {

  static final String USAGE = "idem-bench redis [--records N] [--out DIR]";
  private static final int BATCH = 2048;

  private record Row(
      String name,
      long records,
      long kept,
      double seconds,
      long commands,
      long roundTrips,
      long bytes) {}

  private RedisRun() {}

  static void main(String[] args) throws Exception {
    long n = 2_000_000;
    Path out = Path.of("bench-results");
    for (int i = 1; i < args.length; i++) {
      switch (args[i]) {
        case "--records" -> n = Long.parseLong(args[++i].replace("_", ""));
        case "--out" -> out = Path.of(args[++i]);
        default -> throw new IllegalArgumentException("usage: " + USAGE);
      }
    }
    byte[][] keys = keys((int) n);
    Path dir = Files.createDirectories(out.resolve("redis-" + System.currentTimeMillis()));
    int port;
    try (ServerSocket s = new ServerSocket(0)) {
      port = s.getLocalPort();
    }
    Process server =
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
                dir.toString())
            .redirectErrorStream(true)
            .redirectOutput(dir.resolve("redis.log").toFile())
            .start();
    try {
      awaitPort(port);
      List<Row> rows = new ArrayList<>();
      try (Jedis admin = new Jedis("127.0.0.1", port)) {
        rows.add(
            measure(admin, "idem shared tier + local seen-set", keys, k -> shared(port, k, true)));
        rows.add(
            measure(admin, "idem shared tier, no local set", keys, k -> shared(port, k, false)));
        rows.add(measure(admin, "plain Redis set, SISMEMBER+SADD", keys, k -> plainSet(port, k)));
        rows.add(measure(admin, "local two-tier (no Redis)", keys, RedisRun::local));
      }
      String report = table(rows, n, port);
      Files.writeString(dir.resolve("report.md"), report);
      System.out.print(report);
    } finally {
      server.destroy();
      server.waitFor(10, TimeUnit.SECONDS);
    }
  }

  /** URL-like keys, 30 % of records repeating an earlier key. */
  private static byte[][] keys(int n) {
    SplittableRandom random = new SplittableRandom(2026);
    byte[][] keys = new byte[n][];
    int distinct = 0;
    for (int i = 0; i < n; i++) {
      if (distinct > 0 && random.nextDouble() < 0.3) {
        keys[i] = keys[random.nextInt(i)];
      } else {
        keys[i] =
            ("https://www.example-"
                    + (distinct % 997)
                    + ".com/path/"
                    + distinct
                    + "/item?id="
                    + distinct * 31L)
                .getBytes(StandardCharsets.UTF_8);
        distinct++;
      }
    }
    return keys;
  }

  /** A contender: returns kept keys and Redis round trips. */
  private interface Job {
    long[] run(byte[][] keys) throws Exception;
  }

  private static Row measure(Jedis admin, String name, byte[][] keys, Job job) throws Exception {
    // a warm-up on the first keys, so the JIT has compiled the contender's loop
    job.run(java.util.Arrays.copyOf(keys, Math.min(keys.length, 50_000)));
    admin.flushAll();
    long memBefore = usedMemory(admin);
    long cmdBefore = commands(admin);
    long start = System.nanoTime();
    long[] r = job.run(keys);
    double seconds = (System.nanoTime() - start) / 1e9;
    // the two INFO calls of the measurement itself are not the job's
    long commands = commands(admin) - cmdBefore - 1;
    return new Row(name, keys.length, r[0], seconds, commands, r[1], usedMemory(admin) - memBefore);
  }

  private static long[] shared(int port, byte[][] keys, boolean localSet) throws IOException {
    Fingerprinter f = Fingerprinter.xxh3();
    FingerprintSet local = FingerprintSet.withExpectedSize(1 << 20);
    long kept = 0;
    long trips = 0;
    try (SharedSeenSet set =
        RedisSeenSet.opener("redis://127.0.0.1:" + port)
            .open("bench", SharedSeenSet.Start.WITHOUT_STATE, new SharedSeenSet.Listener() {})) {
      long[] fps = new long[2 * BATCH];
      byte[][] tags = new byte[BATCH][SharedTag.BYTES];
      SharedTag worker = new SharedTag("bench");
      byte[][] previous = new byte[BATCH][];
      int[] at = new int[BATCH];
      for (int from = 0; from < keys.length; from += BATCH) {
        int m = 0;
        for (int i = from; i < Math.min(keys.length, from + BATCH); i++) {
          Fingerprint fp = f.fingerprint(keys[i]);
          if (localSet && local.contains(fp.hi(), fp.lo())) {
            continue;
          }
          fps[2 * m] = fp.hi();
          fps[2 * m + 1] = fp.lo();
          worker.write(0, i, tags[m]);
          at[m++] = i;
        }
        if (m == 0) {
          continue;
        }
        set.markAll(fps, m, tags, previous);
        trips++;
        for (int j = 0; j < m; j++) {
          if (previous[j] == null) {
            kept++;
          }
          if (localSet) {
            local.addIfAbsent(fps[2 * j], fps[2 * j + 1]);
          }
        }
      }
    }
    return new long[] {kept, trips};
  }

  private static long[] plainSet(int port, byte[][] keys) {
    byte[] set = "seen".getBytes(StandardCharsets.UTF_8);
    long kept = 0;
    try (Jedis jedis = new Jedis("127.0.0.1", port)) {
      for (byte[] k : keys) {
        if (!jedis.sismember(set, k)) {
          jedis.sadd(set, k);
          kept++;
        }
      }
    }
    return new long[] {kept, keys.length + kept};
  }

  private static long[] local(byte[][] keys) {
    long kept = 0;
    try (Deduplicator d =
        Idem.deduplicator().expectedKeys(keys.length).falsePositiveRate(0.001).build()) {
      for (byte[] k : keys) {
        if (d.firstSeen(k)) {
          kept++;
        }
      }
    }
    return new long[] {kept, 0};
  }

  private static long usedMemory(Jedis admin) {
    return infoField(admin.info("memory"), "used_memory:");
  }

  private static long commands(Jedis admin) {
    return infoField(admin.info("stats"), "total_commands_processed:");
  }

  private static long infoField(String info, String field) {
    return info.lines()
        .filter(l -> l.startsWith(field))
        .findFirst()
        .map(l -> Long.parseLong(l.substring(field.length()).strip()))
        .orElseThrow();
  }

  private static void awaitPort(int port) throws InterruptedException, IOException {
    for (int i = 0; i < 500; i++) {
      try (Socket s = new Socket("127.0.0.1", port)) {
        return;
      } catch (IOException notYet) {
        Thread.sleep(20);
      }
    }
    throw new IOException("redis-server did not start on port " + port);
  }

  private static String table(List<Row> rows, long n, int port) {
    StringBuilder b = new StringBuilder();
    b.append(
        String.format(
            Locale.ROOT,
            "%n%,d records (30 %% repeats), one loopback " + "redis-server (%s); JVM %s%n%n",
            n,
            "port " + port,
            System.getProperty("java.version")));
    b.append(
        "| contender | records/s | kept | Redis commands / record | round trips / record "
            + "| Redis bytes / kept key |\n|---|---:|---:|---:|---:|---:|\n");
    for (Row r : rows) {
      b.append(
          String.format(
              Locale.ROOT,
              "| %s | %,.0f | %,d | %.3f | %.4f | %s |%n",
              r.name,
              r.records / r.seconds,
              r.kept,
              (double) r.commands / r.records,
              (double) r.roundTrips / r.records,
              r.bytes <= 0 ? "–" : String.format(Locale.ROOT, "%.1f", (double) r.bytes / r.kept)));
    }
    return b.toString();
  }
}
