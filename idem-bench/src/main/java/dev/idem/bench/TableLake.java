package dev.idem.bench;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;
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
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.MessageTypeParser;

/**
 * The parquet-throughput scenario's lake and its oracle: a table of {@code rows} rows in {@code
 * files} zstd files ({@code lake/table-NNNNN.parquet}), columns {@code id} (the key, a string), and
 * {@code seq}, {@code url}, {@code score}, {@code payload}, functions of the row number, so a
 * repeated id comes with other values. 23 % of the rows repeat an id drawn uniformly from those
 * before. Key number k is the k-th distinct id in row order, and its id starts with k: the check
 * reads k back from each output row and wants rows k = 0, 1, 2, … each with its first row's values.
 */
final class TableLake {

  static final MessageType SCHEMA =
      MessageTypeParser.parseMessageType(
          "message row { required binary id (STRING); required int64 seq;"
              + " required binary url (STRING); required int32 score;"
              + " required binary payload (STRING); }");

  private static final long SEED = 20261207L;
  private static final int REPEAT_PERCENT = 23;

  private TableLake() {}

  /** Writes the lake into {@code dir/lake} unless it is there; returns its distinct ids. */
  static long ensure(Path dir, long rows, int files) throws IOException {
    Path lake = dir.resolve("lake");
    Path done = dir.resolve("distinct");
    if (Files.exists(done)) {
      return Long.parseLong(Files.readString(done).strip());
    }
    Scenario.Bench.delete(lake);
    Files.createDirectories(lake);
    SimpleGroupFactory groups = new SimpleGroupFactory(SCHEMA);
    SplittableRandom rnd = new SplittableRandom(SEED);
    long distinct = 0;
    long seq = 0;
    for (int f = 0; f < files; f++) {
      Path file = lake.resolve(String.format(Locale.ROOT, "table-%05d.parquet", f));
      try (ParquetWriter<Group> w =
          ExampleParquetWriter.builder(new LocalOutputFile(file))
              .withConf(new PlainParquetConfiguration())
              .withType(SCHEMA)
              .withCompressionCodec(CompressionCodecName.ZSTD)
              .build()) {
        for (long end = rows * (f + 1) / files; seq < end; seq++) {
          long k =
              distinct == 0 || rnd.nextInt(100) >= REPEAT_PERCENT
                  ? distinct++
                  : rnd.nextLong(distinct);
          w.write(
              groups
                  .newGroup()
                  .append("id", id(k))
                  .append("seq", seq)
                  .append("url", url(seq))
                  .append("score", score(seq))
                  .append("payload", payload(seq)));
        }
      }
    }
    Files.writeString(done, Long.toString(distinct));
    return distinct;
  }

  /** The id of key number {@code k}: the number, then a hash of it, so ids are about 20 bytes. */
  static String id(long k) {
    return k + "-" + Long.toHexString((k + 1) * 0x9E3779B97F4A7C15L);
  }

  static String url(long seq) {
    return "https://example.org/item/" + (seq % 100_003) + "?ref=" + (seq % 97);
  }

  static int score(long seq) {
    return (int) (seq * 7919 % 100_000);
  }

  static String payload(long seq) {
    return "row " + seq + ": lorem ipsum dolor sit amet, consectetur adipiscing elit";
  }

  /** The row number of each key's first row, by key number (replays the generator). */
  static long[] firstRows(long rows, long distinct) {
    long[] first = new long[Math.toIntExact(distinct)];
    SplittableRandom rnd = new SplittableRandom(SEED);
    long d = 0;
    for (long seq = 0; seq < rows; seq++) {
      if (d == 0 || rnd.nextInt(100) >= REPEAT_PERCENT) {
        first[(int) d++] = seq;
      } else {
        rnd.nextLong(d);
      }
    }
    return first;
  }

  /**
   * Every output row against the reference: row i must be key i's first row, whole. Rows missing,
   * repeated, altered or out of order all show.
   */
  static LineData.Check check(List<Path> outputs, long rows, long distinct) throws IOException {
    long[] first = firstRows(rows, distinct);
    long n = 0;
    long unknown = 0;
    long altered = 0;
    long disordered = 0;
    long duplicated = 0;
    long expect = 0; // the key number the next row should have
    for (Path f : outputs) {
      try (ParquetFileReader r =
          ParquetFileReader.open(
              new LocalInputFile(f),
              ParquetReadOptions.builder(new PlainParquetConfiguration()).build())) {
        MessageType schema = r.getFooter().getFileMetaData().getSchema();
        List<ColumnDescriptor> cols = new ArrayList<>();
        for (String c : List.of("id", "seq", "url", "score", "payload")) {
          cols.add(schema.getColumnDescription(new String[] {c}));
        }
        PageReadStore pages;
        while ((pages = r.readNextRowGroup()) != null) {
          ColumnReadStoreImpl store =
              new ColumnReadStoreImpl(
                  pages,
                  new GroupRecordConverter(schema).getRootConverter(),
                  schema,
                  r.getFooter().getFileMetaData().getCreatedBy());
          ColumnReader[] c = cols.stream().map(store::getColumnReader).toArray(ColumnReader[]::new);
          for (long i = 0, count = pages.getRowCount(); i < count; i++, n++) {
            String id = c[0].getBinary().toStringUsingUTF8();
            long seq = c[1].getLong();
            String url = c[2].getBinary().toStringUsingUTF8();
            int score = c[3].getInteger();
            String payload = new String(c[4].getBinary().getBytes(), StandardCharsets.UTF_8);
            for (ColumnReader col : c) {
              col.consume();
            }
            int dash = id.indexOf('-');
            long k = dash > 0 ? parse(id.substring(0, dash)) : -1;
            if (k < 0 || k >= first.length || !id.equals(id(k))) {
              unknown++;
              continue;
            }
            if (k < expect) {
              duplicated++;
            } else if (k > expect) {
              disordered++; // (or missed: counted below from the total)
            }
            expect = Math.max(expect, k + 1);
            long s = first[(int) k];
            if (seq != s
                || !url.equals(url(s))
                || score != score(s)
                || !payload.equals(payload(s))) {
              altered++;
            }
          }
        }
      }
    }
    long missed = Math.max(0, distinct - (n - duplicated - unknown));
    return new LineData.Check(
        n,
        missed,
        duplicated,
        unknown,
        altered,
        0,
        disordered == 0 && duplicated == 0 && unknown == 0);
  }

  private static long parse(String s) {
    try {
      return Long.parseLong(s);
    } catch (NumberFormatException e) {
      return -1;
    }
  }
}
