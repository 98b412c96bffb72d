package dev.idem.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.BitSet;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.stream.Stream;
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
import org.apache.parquet.schema.Type;

/**
 * The parquet scenario's lake, its oracle and its rescan child. The lake: {@code rows} rows in
 * {@code files} zstd files ({@code lake/data-NNNNN.parquet}, one row group each), columns {@code
 * id} (a URL line of {@link LineData}, the key; repeats spread as {@link LineData.Dist#MIXED30}),
 * {@code ts} and {@code body} (functions of the row number, so a repeated id comes with other
 * values). The check maps every output row back to its key number and compares it with the key's
 * first row, as {@link LineData#check} does for lines.
 */
public final class ParquetLake {

  static final MessageType SCHEMA =
      MessageTypeParser.parseMessageType(
          "message row { required binary id (STRING); required int64 ts;"
              + " required binary body (STRING); }");

  private ParquetLake() {}

  /** {@code ParquetLake rescan DIR}: the restart that rebuilds a set of every id written. */
  public static void main(String[] args) throws IOException {
    Set<String> seen = new HashSet<>();
    long rows = read(parquetFiles(Path.of(args[1])), true, (id, ts, body) -> seen.add(id(id)));
    System.out.println("rows=" + rows + " set_size=" + seen.size());
  }

  /** Writes the lake into {@code dir/lake} unless it is there; returns its distinct ids. */
  static long ensure(Path dir, long rows, int files) throws IOException {
    Path lake = dir.resolve("lake");
    Path done = dir.resolve("distinct");
    if (Files.exists(done)) {
      return Long.parseLong(Files.readString(done).strip());
    }
    Scenario.Bench.delete(lake);
    Files.createDirectories(lake);
    LineData.Keys keys = new LineData.Keys(LineData.Dist.MIXED30, rows);
    SimpleGroupFactory groups = new SimpleGroupFactory(SCHEMA);
    byte[] line = new byte[256];
    long seq = 0;
    for (int f = 0; f < files; f++) {
      Path file = lake.resolve(String.format(Locale.ROOT, "data-%05d.parquet", f));
      try (ParquetWriter<Group> w =
          ExampleParquetWriter.builder(new LocalOutputFile(file))
              .withConf(new PlainParquetConfiguration())
              .withType(SCHEMA)
              .withCompressionCodec(CompressionCodecName.ZSTD)
              .withRowGroupSize(512L << 20)
              .build()) {
        for (long end = rows * (f + 1) / files; seq < end; seq++) {
          int len = LineData.line(LineData.Shape.URL, line, keys.next(seq), seq) - 1;
          w.write(
              groups
                  .newGroup()
                  .append("id", Binary.fromConstantByteArray(Arrays.copyOf(line, len)))
                  .append("ts", ts(seq))
                  .append("body", body(seq)));
        }
      }
    }
    Files.writeString(done, Long.toString(keys.distinct()));
    return keys.distinct();
  }

  static long ts(long seq) {
    return 1_767_225_600_000L + seq * 37;
  }

  static String body(long seq) {
    return "lorem ipsum dolor sit amet, row " + seq;
  }

  /** The visible {@code *.parquet} files of {@code dir}, in name order. */
  static List<Path> parquetFiles(Path dir) throws IOException {
    try (Stream<Path> files = Files.list(dir)) {
      return files
          .filter(f -> f.getFileName().toString().matches("[^.].*\\.parquet"))
          .sorted()
          .toList();
    }
  }

  /** Every output row against the reference of a lake of {@code rows} rows. */
  static LineData.Check check(List<Path> outputs, long rows, long distinct) throws IOException {
    int[] first = LineData.firstRecords(LineData.Dist.MIXED30, rows, distinct);
    BitSet seen = new BitSet(first.length);
    long[] counts = new long[5]; // duplicated, unknown, altered, out of order, keys seen
    byte[] expected = new byte[256];
    long n =
        read(
            outputs,
            false,
            (id, ts, body) -> {
              long c = LineData.keyNumber(LineData.Shape.URL, id, 0, id.length);
              if (c < 0 || c >= first.length) {
                counts[1]++;
                return;
              }
              long seq = first[(int) c];
              int len = LineData.line(LineData.Shape.URL, expected, c, seq) - 1;
              if (!Arrays.equals(expected, 0, len, id, 0, id.length)
                  || ts != ts(seq)
                  || !body.equals(body(seq))) {
                counts[2]++;
              }
              if (seen.get((int) c)) {
                counts[0]++;
              } else {
                counts[3] += c == counts[4]++ ? 0 : 1;
                seen.set((int) c);
              }
            });
    return new LineData.Check(
        n,
        first.length - seen.cardinality(),
        counts[0],
        counts[1],
        counts[2],
        0,
        counts[0] + counts[1] + counts[3] == 0);
  }

  @FunctionalInterface
  interface RowConsumer {
    void row(byte[] id, long ts, String body);
  }

  /** Reads the rows of {@code files} in order (only {@code id} when {@code idOnly}). */
  static long read(List<Path> files, boolean idOnly, RowConsumer consumer) throws IOException {
    long rows = 0;
    for (Path f : files) {
      try (ParquetFileReader r =
          ParquetFileReader.open(
              new LocalInputFile(f),
              ParquetReadOptions.builder(new PlainParquetConfiguration()).build())) {
        MessageType schema = r.getFooter().getFileMetaData().getSchema();
        if (idOnly) {
          schema = new MessageType(schema.getName(), List.<Type>of(schema.getType("id")));
          r.setRequestedSchema(schema);
        }
        List<ColumnDescriptor> cols = new ArrayList<>(schema.getColumns());
        PageReadStore pages;
        while ((pages = r.readNextRowGroup()) != null) {
          ColumnReadStoreImpl store =
              new ColumnReadStoreImpl(
                  pages,
                  new GroupRecordConverter(schema).getRootConverter(),
                  schema,
                  r.getFooter().getFileMetaData().getCreatedBy());
          ColumnReader[] c = cols.stream().map(store::getColumnReader).toArray(ColumnReader[]::new);
          for (long i = 0, n = pages.getRowCount(); i < n; i++, rows++) {
            consumer.row(
                c[0].getBinary().getBytes(),
                idOnly ? 0 : c[1].getLong(),
                idOnly ? "" : c[2].getBinary().toStringUsingUTF8());
            for (ColumnReader col : c) {
              col.consume();
            }
          }
        }
      }
    }
    return rows;
  }

  static String id(byte[] id) {
    return new String(id, java.nio.charset.StandardCharsets.UTF_8);
  }
}
