package dev.idem.bench;

import java.io.BufferedWriter;
import java.io.IOException;
import java.io.OutputStreamWriter;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Properties;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;

/**
 * Part B's DuckDB contender, a child JVM of its own (issue #18): DuckDB in process through its JDBC
 * driver runs the order-preserving dedup query
 *
 * <pre>
 * SELECT line FROM (SELECT line, min(rn) AS first
 *                   FROM (SELECT line, row_number() OVER () AS rn FROM read_csv(...))
 *                   GROUP BY line)
 * ORDER BY first
 * </pre>
 *
 * and writes the first occurrences in input order. Keyed ({@code --key F}), it groups by {@code
 * json_extract_string(line, '$.F')} and keeps {@code arg_min(line, rn)}, the whole first line.
 *
 * <p>The input is read as one VARCHAR column per line with nothing interpreted: the delimiter is
 * the newline itself (so no byte of a line can be one), quote and escape are empty, no header, no
 * sniffing, strict mode (a lone {@code \r}, which DuckDB's reader would take for a line break, is
 * an error rather than a silent split). The output is written by {@code COPY ... TO} with empty
 * quote and escape, byte for byte the input lines ({@code --via copy}, the default), or streamed
 * through JDBC and written here ({@code --via jdbc}). An empty line reads as NULL and is written
 * back empty.
 *
 * <pre>
 * DuckDbDedup [--threads N] [--memory-limit none|SIZE] [--temp DIR] [--key FIELD]
 *             [--via copy|jdbc] [--preserve-insertion-order true|false] [--stats FILE] IN OUT
 * </pre>
 *
 * <p>The stats file gets {@code name=value} lines: DuckDB's version and settings, the time to load
 * the driver and connect, the query's time, the rows written and the peak size of the temporary
 * directory (polled every 50 ms).
 */
public final class DuckDbDedup {

  private DuckDbDedup() {}

  /** One run's settings. */
  record Options(
      int threads,
      String memoryLimit,
      Path temp,
      String key,
      boolean viaCopy,
      boolean preserveInsertionOrder,
      Path stats) {}

  public static void main(String[] args) throws Exception {
    int threads = Runtime.getRuntime().availableProcessors();
    String memoryLimit = "none";
    Path temp = null;
    String key = null;
    boolean viaCopy = true;
    boolean preserveInsertionOrder = true;
    Path stats = null;
    List<String> files = new ArrayList<>();
    for (int i = 0; i < args.length; i++) {
      switch (args[i]) {
        case "--threads" -> threads = Integer.parseInt(args[++i]);
        case "--memory-limit" -> memoryLimit = args[++i];
        case "--temp" -> temp = Path.of(args[++i]);
        case "--key" -> key = args[++i];
        case "--via" -> viaCopy = args[++i].equals("copy");
        case "--preserve-insertion-order" ->
            preserveInsertionOrder = Boolean.parseBoolean(args[++i]);
        case "--stats" -> stats = Path.of(args[++i]);
        default -> files.add(args[i]);
      }
    }
    if (files.size() != 2 || (key != null && !key.matches("[A-Za-z0-9_]+"))) {
      System.err.println(
          "usage: DuckDbDedup [--threads N] [--memory-limit none|SIZE] [--temp DIR]"
              + " [--key FIELD] [--via copy|jdbc] [--preserve-insertion-order true|false]"
              + " [--stats FILE] IN OUT");
      System.exit(2);
    }
    run(
        Path.of(files.get(0)),
        Path.of(files.get(1)),
        new Options(threads, memoryLimit, temp, key, viaCopy, preserveInsertionOrder, stats));
  }

  /** The dedup query over {@code in}: whole lines, or keyed by a top-level JSON field. */
  static String query(Path in, String key) {
    String read =
        "read_csv("
            + literal(in.toAbsolutePath().toString())
            + ", columns = {'line': 'VARCHAR'}, header = false, auto_detect = false"
            + ", delim = chr(10), new_line = '\\n', quote = '', escape = '', comment = ''"
            + ", skip = 0, strict_mode = true)";
    String numbered = "SELECT line, row_number() OVER () AS rn FROM " + read;
    String grouped =
        key == null
            ? "SELECT line, min(rn) AS first FROM (" + numbered + ") GROUP BY line"
            : "SELECT arg_min(line, rn) AS line, min(rn) AS first FROM ("
                + numbered
                + ") GROUP BY json_extract_string(line, '$."
                + key
                + "')";
    return "SELECT line FROM (" + grouped + ") ORDER BY first";
  }

  static void run(Path in, Path out, Options o) throws SQLException, IOException {
    long t0 = System.nanoTime();
    Properties props = new Properties();
    // results arrive chunk by chunk instead of materialised whole (only --via jdbc reads them)
    props.setProperty("jdbc_stream_results", "true");
    List<String> stats = new ArrayList<>();
    try (Connection c = DriverManager.getConnection("jdbc:duckdb:", props);
        Statement s = c.createStatement()) {
      long connected = System.nanoTime();
      s.execute("SET threads = " + o.threads());
      s.execute(
          "SET memory_limit = " + literal(o.memoryLimit().equals("none") ? "-1" : o.memoryLimit()));
      // COPY writes rows in the query's order only while this holds (DuckDB's default); false
      // is DuckDB's advice when a query runs out of memory (the output's order is then checked)
      s.execute("SET preserve_insertion_order = " + o.preserveInsertionOrder());
      if (o.temp() != null) {
        Files.createDirectories(o.temp());
        s.execute("SET temp_directory = " + literal(o.temp().toAbsolutePath().toString()));
      }
      stats.add("duckdb_version=" + scalar(s, "SELECT version()"));
      stats.add("threads=" + scalar(s, "SELECT current_setting('threads')"));
      stats.add("memory_limit=" + scalar(s, "SELECT current_setting('memory_limit')"));
      stats.add("via=" + (o.viaCopy() ? "copy" : "jdbc"));
      stats.add(
          "preserve_insertion_order="
              + scalar(s, "SELECT current_setting('preserve_insertion_order')"));
      TempPeak peak = new TempPeak(o.temp());
      peak.start();
      long q0 = System.nanoTime();
      long rows;
      String query = query(in, o.key());
      if (o.viaCopy()) {
        rows =
            updateCount(
                s,
                "COPY ("
                    + query
                    + ") TO "
                    + literal(out.toAbsolutePath().toString())
                    + " (FORMAT csv, HEADER false, QUOTE '', ESCAPE '')");
      } else {
        rows = stream(s, query, out);
      }
      long q1 = System.nanoTime();
      peak.interrupt();
      stats.add(String.format(Locale.ROOT, "connect_millis=%d", (connected - t0) / 1_000_000));
      stats.add(String.format(Locale.ROOT, "query_millis=%d", (q1 - q0) / 1_000_000));
      stats.add("rows=" + rows);
      stats.add("temp_peak_bytes=" + peak.peak.get());
    }
    if (o.stats() != null) {
      Files.write(o.stats(), stats);
    }
  }

  /** Streams the query's rows to {@code out}, one line each, UTF-8; returns the rows written. */
  private static long stream(Statement s, String query, Path out) throws SQLException, IOException {
    long rows = 0;
    try (ResultSet r = s.executeQuery(query);
        Writer w =
            new BufferedWriter(
                new OutputStreamWriter(Files.newOutputStream(out), StandardCharsets.UTF_8),
                1 << 16)) {
      while (r.next()) {
        String line = r.getString(1);
        if (line != null) {
          w.write(line);
        }
        w.write('\n');
        rows++;
      }
    }
    return rows;
  }

  /** What a COPY reports: its rows, as an update count or a one-row result. */
  static long updateCount(Statement s, String sql) throws SQLException {
    if (s.execute(sql)) {
      try (ResultSet r = s.getResultSet()) {
        return r.next() ? r.getLong(1) : -1;
      }
    }
    return s.getLargeUpdateCount();
  }

  /** The first column of the first row {@code sql} gives, as text; empty for no row. */
  static String scalar(Statement s, String sql) throws SQLException {
    try (ResultSet r = s.executeQuery(sql)) {
      return r.next() ? r.getString(1) : "";
    }
  }

  /** A SQL string literal. */
  static String literal(String text) {
    return "'" + text.replace("'", "''") + "'";
  }

  /** Polls the size of DuckDB's temporary directory (spilled data) and keeps the largest. */
  private static final class TempPeak extends Thread {
    private final Path dir;
    final AtomicLong peak = new AtomicLong();

    TempPeak(Path dir) {
      super("duckdb-temp-peak");
      this.dir = dir;
      setDaemon(true);
    }

    @Override
    public void run() {
      while (dir != null && !isInterrupted()) {
        peak.accumulateAndGet(size(), Math::max);
        try {
          Thread.sleep(50);
        } catch (InterruptedException e) {
          return;
        }
      }
    }

    private long size() {
      if (!Files.isDirectory(dir)) {
        return 0;
      }
      try (Stream<Path> files = Files.walk(dir)) {
        return files
            .mapToLong(
                f -> {
                  try {
                    return Files.isRegularFile(f) ? Files.size(f) : 0;
                  } catch (IOException e) {
                    return 0; // deleted between listing and looking
                  }
                })
            .sum();
      } catch (IOException | UncheckedIOException e) {
        return 0;
      }
    }
  }
}
