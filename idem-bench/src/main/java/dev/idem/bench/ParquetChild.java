package dev.idem.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;
import org.apache.parquet.ParquetReadOptions;
import org.apache.parquet.column.ColumnDescriptor;
import org.apache.parquet.column.ColumnReader;
import org.apache.parquet.column.impl.ColumnReadStoreImpl;
import org.apache.parquet.column.page.PageReadStore;
import org.apache.parquet.conf.PlainParquetConfiguration;
import org.apache.parquet.example.data.simple.convert.GroupRecordConverter;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.io.LocalInputFile;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.Type;

/**
 * The child JVMs of {@code idem-bench parquet} (Part D, issue #20), one per mode, each measured
 * from outside by {@link ParquetRun}:
 *
 * <ul>
 *   <li>{@code rescan DIR STATS}: the "scan every Parquet footer and id already written" restart.
 *       parquet-java opens each {@code DIR/*.parquet} (its footer), reads the {@code id} column
 *       alone, page by page with a {@link ColumnReader}, and adds every value as a {@code String}
 *       to an exact {@code java.util.HashSet<String>}.
 *   <li>{@code duckdb-set DIR STATS}: the same restart with DuckDB (JDBC, in-memory database):
 *       {@code CREATE TABLE seen AS SELECT id FROM read_parquet('DIR/*.parquet')} and {@code CREATE
 *       UNIQUE INDEX} on it (an ART index: the set a DuckDB-based job would probe).
 *   <li>{@code duckdb-dedup GLOB OUT STATS TEMP}: DuckDB's order-preserving dedup of the lake to
 *       one zstd Parquet file ({@link #dedupQuery}).
 * </ul>
 *
 * DuckDB runs as in Part B: {@code threads} = the machine's cores, {@code memory_limit = -1} (no
 * limit), a temporary directory in the bench's work dir. Each mode writes {@code name=value} lines
 * to STATS.
 */
public final class ParquetChild {

  private ParquetChild() {}

  public static void main(String[] args) throws Exception {
    List<String> stats = new ArrayList<>();
    long t0 = System.nanoTime();
    Path statsFile;
    switch (args.length > 0 ? args[0] : "") {
      case "rescan" -> {
        statsFile = Path.of(args[2]);
        rescan(Path.of(args[1]), stats);
      }
      case "duckdb-set" -> {
        statsFile = Path.of(args[2]);
        duckdbSet(Path.of(args[1]), stats);
      }
      case "duckdb-dedup" -> {
        statsFile = Path.of(args[3]);
        duckdbDedup(args[1], Path.of(args[2]), Path.of(args[4]), stats);
      }
      default -> {
        System.err.println(
            "usage: ParquetChild rescan DIR STATS | duckdb-set DIR STATS"
                + " | duckdb-dedup GLOB OUT STATS TEMP");
        System.exit(2);
        return;
      }
    }
    stats.add("own_millis=" + (System.nanoTime() - t0) / 1_000_000);
    Files.write(statsFile, stats);
  }

  /** The visible {@code *.parquet} files of {@code dir}, in name order. */
  static List<Path> parquetFiles(Path dir) throws IOException {
    try (Stream<Path> files = Files.list(dir)) {
      return files
          .filter(
              f -> {
                String n = f.getFileName().toString();
                return n.endsWith(".parquet") && !n.startsWith(".");
              })
          .sorted()
          .toList();
    }
  }

  private static void rescan(Path dir, List<String> stats) throws IOException {
    Set<String> seen = new HashSet<>();
    long rows = 0;
    List<Path> files = parquetFiles(dir);
    PlainParquetConfiguration conf = new PlainParquetConfiguration();
    for (Path f : files) {
      try (ParquetFileReader r =
          ParquetFileReader.open(new LocalInputFile(f), ParquetReadOptions.builder(conf).build())) {
        MessageType schema = r.getFooter().getFileMetaData().getSchema();
        MessageType projection =
            new MessageType(schema.getName(), List.<Type>of(schema.getType("id")));
        r.setRequestedSchema(projection);
        ColumnDescriptor id = projection.getColumns().get(0);
        String createdBy = r.getFooter().getFileMetaData().getCreatedBy();
        PageReadStore pages;
        while ((pages = r.readNextRowGroup()) != null) {
          ColumnReader c =
              new ColumnReadStoreImpl(
                      pages,
                      new GroupRecordConverter(projection).getRootConverter(),
                      projection,
                      createdBy)
                  .getColumnReader(id);
          for (long i = 0, n = pages.getRowCount(); i < n; i++) {
            if (c.getCurrentDefinitionLevel() == id.getMaxDefinitionLevel()) {
              seen.add(c.getBinary().toStringUsingUTF8());
            }
            c.consume();
            rows++;
          }
        }
      }
    }
    stats.add("structure=java.util.HashSet<String>");
    stats.add("files=" + files.size());
    stats.add("rows=" + rows);
    stats.add("set_size=" + seen.size());
  }

  private static void duckdbSet(Path dir, List<String> stats) throws SQLException {
    try (Connection c = DriverManager.getConnection("jdbc:duckdb:");
        Statement s = c.createStatement()) {
      settings(s, null, stats);
      String glob = DuckDbDedup.literal(dir.toAbsolutePath() + "/*.parquet");
      long rows =
          DuckDbDedup.updateCount(
              s, "CREATE TABLE seen AS SELECT id FROM read_parquet(" + glob + ")");
      s.execute("CREATE UNIQUE INDEX seen_id ON seen (id)");
      stats.add("structure=DuckDB table with a UNIQUE index (ART) on id");
      stats.add("rows=" + rows);
      stats.add("set_size=" + DuckDbDedup.scalar(s, "SELECT count(*) FROM seen"));
    }
  }

  /**
   * DuckDB's first-occurrence dedup in input order: each row numbered by its file (the lake's files
   * sort in input order) and its row in the file, the first row of each id kept.
   */
  static String dedupQuery(String glob) {
    return "SELECT id, ts, body FROM (SELECT *, row_number() OVER (PARTITION BY id ORDER BY"
        + " filename, file_row_number) AS rn FROM read_parquet("
        + DuckDbDedup.literal(glob)
        + ", filename = true, file_row_number = true)) WHERE rn = 1"
        + " ORDER BY filename, file_row_number";
  }

  private static void duckdbDedup(String glob, Path out, Path temp, List<String> stats)
      throws SQLException, IOException {
    try (Connection c = DriverManager.getConnection("jdbc:duckdb:");
        Statement s = c.createStatement()) {
      settings(s, temp, stats);
      long rows =
          DuckDbDedup.updateCount(
              s,
              "COPY ("
                  + dedupQuery(glob)
                  + ") TO "
                  + DuckDbDedup.literal(out.toAbsolutePath().toString())
                  + " (FORMAT parquet, COMPRESSION zstd)");
      stats.add("rows=" + rows);
    }
  }

  private static void settings(Statement s, Path temp, List<String> stats) throws SQLException {
    s.execute("SET threads = " + Runtime.getRuntime().availableProcessors());
    s.execute("SET memory_limit = '-1'");
    if (temp != null) {
      s.execute("SET temp_directory = " + DuckDbDedup.literal(temp.toAbsolutePath().toString()));
    }
    stats.add("duckdb_version=" + DuckDbDedup.scalar(s, "SELECT version()"));
    stats.add("threads=" + DuckDbDedup.scalar(s, "SELECT current_setting('threads')"));
    stats.add("memory_limit=" + DuckDbDedup.scalar(s, "SELECT current_setting('memory_limit')"));
  }
}
