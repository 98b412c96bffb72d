package dev.idem.bench;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;

/**
 * DuckDB's side of the benchmarks: the statements of its dedup (built here, run by its Python
 * package or by this class's {@code main} through JDBC, in an in-memory database), and that child.
 */
public final class DuckDbSql {

  private DuckDbSql() {}

  /** {@code DuckDbSql SQL...}: runs each statement; prints the version and the last row count. */
  public static void main(String[] args) throws SQLException {
    try (Connection c = DriverManager.getConnection("jdbc:duckdb:");
        Statement s = c.createStatement()) {
      String rows = "";
      for (String sql : args) {
        if (s.execute(sql)) {
          try (ResultSet r = s.getResultSet()) {
            rows = r.next() ? r.getString(1) : rows;
          }
        } else {
          rows = Long.toString(s.getLargeUpdateCount());
        }
      }
      try (ResultSet r = s.executeQuery("SELECT version()")) {
        r.next();
        System.out.println("duckdb=" + r.getString(1) + " rows=" + rows);
      }
    }
  }

  /** The settings every DuckDB contender gets: its threads, memory limit (none: -1), temp dir. */
  static List<String> settings(String memoryLimit, Path temp) {
    List<String> s = new ArrayList<>();
    s.add("SET threads = " + Runtime.getRuntime().availableProcessors());
    s.add("SET memory_limit = " + literal(memoryLimit == null ? "-1" : memoryLimit));
    if (temp != null) {
      s.add("SET temp_directory = " + literal(temp.toAbsolutePath().toString()));
    }
    return s;
  }

  /**
   * The order-preserving dedup of a file of lines into {@code out}: each line numbered, grouped by
   * itself (or by the JSON field {@code key}: {@code arg_min(line, rn)} keeps the first whole
   * line), ordered by the first number. The file is read as one VARCHAR a line with nothing
   * interpreted (the delimiter is the newline itself; no quote, escape, header or sniffing; strict
   * mode, so a lone {@code \r} is an error, not a split) and written back with empty quote and
   * escape, byte for byte.
   */
  static List<String> dedup(Path in, Path out, String key, String memoryLimit, Path temp) {
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
    List<String> s = settings(memoryLimit, temp);
    s.add(
        "COPY (SELECT line FROM ("
            + grouped
            + ") ORDER BY first) TO "
            + literal(out.toAbsolutePath().toString())
            + " (FORMAT csv, HEADER false, QUOTE '', ESCAPE '')");
    return s;
  }

  static String literal(String text) {
    return "'" + text.replace("'", "''") + "'";
  }
}
