package dev.idem.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.BitSet;
import java.util.List;
import java.util.Locale;
import java.util.Properties;
import org.apache.parquet.ParquetReadOptions;
import org.apache.parquet.column.ColumnDescriptor;
import org.apache.parquet.column.ColumnReader;
import org.apache.parquet.column.impl.ColumnReadStoreImpl;
import org.apache.parquet.column.page.PageReadStore;
import org.apache.parquet.conf.PlainParquetConfiguration;
import org.apache.parquet.example.data.Group;
import org.apache.parquet.example.data.simple.SimpleGroupFactory;
import org.apache.parquet.example.data.simple.convert.GroupRecordConverter;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.ParquetWriter;
import org.apache.parquet.hadoop.example.ExampleParquetWriter;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;
import org.apache.parquet.io.LocalInputFile;
import org.apache.parquet.io.LocalOutputFile;
import org.apache.parquet.io.api.Binary;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.MessageTypeParser;

/**
 * Part D's lake (issue #20): {@code rows} rows in {@code files} zstd Parquet files of equal size
 * ({@code lake/data-NNNNN.parquet}, one row group each), columns {@code id} (a URL, the key),
 * {@code ts} (int64) and {@code body} (≈ 40 B of text). The keys follow Part A's generator ({@link
 * E2eData.Keys}, {@link E2eData.Dist#DEFAULT}, fixed seed): 30 % of the rows repeat an id seen
 * earlier in any earlier file or row (a third one of the first 1,000 ids, a third one of the last
 * 1,000 new ids, a third any earlier id). Row {@code seq} (0, 1, 2, ... over the whole lake) has
 * {@code ts} and {@code body} functions of {@code seq}, so a repeated id comes with other values.
 *
 * <p>The check ({@link #check}) knows the reference without idem: the c-th distinct id first occurs
 * at row {@code firstRecords[c]}, so the expected output is, row by row, the row of {@code
 * firstRecords[0]}, {@code firstRecords[1]}, ... and every output row maps back to its c.
 */
final class ParquetLakeData {

  static final MessageType SCHEMA =
      MessageTypeParser.parseMessageType(
          "message row { required binary id (STRING); required int64 ts;"
              + " required binary body (STRING); }");

  private static final long TS0 = 1_767_225_600_000L; // 2026-01-01T00:00:00Z in ms

  /** What the lake holds: rows, distinct ids, files, bytes on disk. */
  record Facts(long rows, long distinct, int files, long bytes) {}

  private ParquetLakeData() {}

  static Path lake(Path dir) {
    return dir.resolve("lake");
  }

  /** Writes the lake into {@code dir}, or reuses it when {@code dir/facts.properties} matches. */
  static Facts ensure(Path dir, long rows, int files) throws IOException {
    Path factsFile = dir.resolve("facts.properties");
    if (Files.exists(factsFile)) {
      Properties p = new Properties();
      try (var in = Files.newInputStream(factsFile)) {
        p.load(in);
      }
      Facts f =
          new Facts(
              Long.parseLong(p.getProperty("rows")),
              Long.parseLong(p.getProperty("distinct")),
              Integer.parseInt(p.getProperty("files")),
              Long.parseLong(p.getProperty("bytes")));
      if (f.rows() == rows && f.files() == files) {
        System.err.printf(Locale.ROOT, "parquet: reusing the lake in %s%n", dir);
        return f;
      }
    }
    Path lake = Files.createDirectories(lake(dir));
    E2eData.Keys keys = new E2eData.Keys(E2eData.Dist.DEFAULT, rows);
    SimpleGroupFactory groups = new SimpleGroupFactory(SCHEMA);
    PlainParquetConfiguration conf = new PlainParquetConfiguration();
    byte[] line = new byte[256];
    long seq = 0;
    long bytes = 0;
    long t0 = System.nanoTime();
    for (int f = 0; f < files; f++) {
      long end = rows * (f + 1) / files;
      Path file = lake.resolve(String.format(Locale.ROOT, "data-%05d.parquet", f));
      Files.deleteIfExists(file);
      try (ParquetWriter<Group> w =
          ExampleParquetWriter.builder(new LocalOutputFile(file))
              .withConf(conf)
              .withType(SCHEMA)
              .withCompressionCodec(CompressionCodecName.ZSTD)
              .withRowGroupSize(512L << 20) // one row group per file
              .build()) {
        for (; seq < end; seq++) {
          long c = keys.next(seq);
          int len = E2eData.line(E2eData.Shape.URL_LINES, line, c, seq) - 1; // no newline
          // a copy: the writer keeps the Binary (its dictionary) until the row group is written
          w.write(
              groups
                  .newGroup()
                  .append("id", Binary.fromConstantByteArray(Arrays.copyOf(line, len)))
                  .append("ts", ts(seq))
                  .append("body", body(seq)));
        }
      }
      bytes += Files.size(file);
    }
    Facts facts = new Facts(rows, keys.distinct(), files, bytes);
    Properties p = new Properties();
    p.setProperty("rows", Long.toString(rows));
    p.setProperty("distinct", Long.toString(facts.distinct()));
    p.setProperty("files", Integer.toString(files));
    p.setProperty("bytes", Long.toString(bytes));
    try (var out = Files.newOutputStream(factsFile)) {
      p.store(out, "idem-bench parquet: the lake in lake/ (delete this file to write it again)");
    }
    System.err.printf(
        Locale.ROOT,
        "parquet: wrote %,d rows (%,d distinct ids) in %d files, %,d bytes, in %.1f s%n",
        rows,
        facts.distinct(),
        files,
        bytes,
        (System.nanoTime() - t0) / 1e9);
    return facts;
  }

  static long ts(long seq) {
    return TS0 + seq * 37;
  }

  static String body(long seq) {
    return "lorem ipsum dolor sit amet, row " + seq;
  }

  /**
   * Compares the rows of {@code outputs} (in the order given) with the reference: missed and
   * duplicated ids, rows that are not their id's first occurrence ({@code altered}: another ts or
   * body), ids that are none of the lake's ({@code unknown}), and whether the order is the
   * reference's.
   */
  static OutputCheck check(List<Path> outputs, Facts facts) throws IOException {
    int[] first = E2eData.firstRecords(E2eData.Dist.DEFAULT, facts.rows(), facts.distinct());
    BitSet seen = new BitSet(first.length);
    long rows = 0;
    long duplicated = 0;
    long unknown = 0;
    long altered = 0;
    boolean inOrder = true;
    byte[] expected = new byte[256];
    PlainParquetConfiguration conf = new PlainParquetConfiguration();
    for (Path f : outputs) {
      try (ParquetFileReader r =
          ParquetFileReader.open(new LocalInputFile(f), ParquetReadOptions.builder(conf).build())) {
        MessageType schema = r.getFooter().getFileMetaData().getSchema();
        String createdBy = r.getFooter().getFileMetaData().getCreatedBy();
        ColumnDescriptor[] cols = {
          column(schema, "id"), column(schema, "ts"), column(schema, "body")
        };
        PageReadStore pages;
        while ((pages = r.readNextRowGroup()) != null) {
          ColumnReadStoreImpl store =
              new ColumnReadStoreImpl(
                  pages, new GroupRecordConverter(schema).getRootConverter(), schema, createdBy);
          ColumnReader id = store.getColumnReader(cols[0]);
          ColumnReader ts = store.getColumnReader(cols[1]);
          ColumnReader body = store.getColumnReader(cols[2]);
          for (long i = 0, n = pages.getRowCount(); i < n; i++, rows++) {
            byte[] key = present(id, cols[0]) ? id.getBinary().getBytes() : new byte[0];
            long c = E2eData.keyNumber(E2eData.Shape.URL_LINES, key, 0, key.length);
            if (c < 0 || c >= first.length) {
              unknown++;
              inOrder = false;
            } else {
              int len = E2eData.line(E2eData.Shape.URL_LINES, expected, c, 0) - 1;
              long seq = first[(int) c];
              boolean same =
                  Arrays.equals(expected, 0, len, key, 0, key.length)
                      && present(ts, cols[1])
                      && ts.getLong() == ts(seq)
                      && present(body, cols[2])
                      && body.getBinary().toStringUsingUTF8().equals(body(seq));
              if (!same) {
                altered++;
              }
              if (seen.get((int) c)) {
                duplicated++;
                inOrder = false;
              } else {
                inOrder &= c == rows;
                seen.set((int) c);
              }
            }
            id.consume();
            ts.consume();
            body.consume();
          }
        }
      }
    }
    return new OutputCheck(
        rows, first.length - seen.cardinality(), duplicated, unknown, altered, 0, inOrder);
  }

  private static ColumnDescriptor column(MessageType schema, String name) {
    return schema.getColumnDescription(new String[] {name});
  }

  /** Whether the reader's current value is there (not null). */
  private static boolean present(ColumnReader r, ColumnDescriptor d) {
    return r.getCurrentDefinitionLevel() == d.getMaxDefinitionLevel();
  }
}
