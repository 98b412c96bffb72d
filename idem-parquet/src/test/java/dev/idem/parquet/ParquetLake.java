package dev.idem.parquet;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import org.apache.parquet.example.data.Group;
import org.apache.parquet.example.data.simple.SimpleGroupFactory;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.MessageTypeParser;

/**
 * A generated lake of Parquet files for tests: random rows keyed by {@code meta.url} (a nested
 * column), with the key of each row kept aside so the expected output is worked out without idem's
 * code.
 *
 * @param files the files, in name order
 * @param keys each row's key, in input order ({@code null}: the key column is null)
 */
public record ParquetLake(List<Path> files, List<String> keys) {

  public static final MessageType SCHEMA =
      MessageTypeParser.parseMessageType(
          "message row { required int64 n; optional binary id (STRING);"
              + " optional group meta { optional binary url (STRING); optional int32 rank; }"
              + " optional binary payload (STRING); }");

  /**
   * Writes {@code files} files of random rows: {@code meta.url} from a pool of {@code distinct}
   * values (null in about one row of {@code nullEvery}, if positive), small row groups, codecs
   * mixed.
   */
  public static ParquetLake write(
      Path dir, long seed, int files, int rowsPerFile, int distinct, int nullEvery)
      throws IOException {
    Random random = new Random(seed);
    SimpleGroupFactory f = new SimpleGroupFactory(SCHEMA);
    List<Path> paths = new ArrayList<>();
    List<String> keys = new ArrayList<>();
    long n = 0;
    CompressionCodecName[] codecs = {
      CompressionCodecName.ZSTD, CompressionCodecName.SNAPPY, CompressionCodecName.UNCOMPRESSED
    };
    for (int i = 0; i < files; i++) {
      List<Group> rows = new ArrayList<>();
      for (int r = 0; r < rowsPerFile; r++) {
        Group g = f.newGroup().append("n", n++);
        if (random.nextInt(4) > 0) {
          g.append("id", "id-" + random.nextInt(10));
        }
        String url = null;
        Group meta = g.addGroup("meta");
        if (nullEvery <= 0 || random.nextInt(nullEvery) > 0) {
          url = "https://example.org/ü/" + random.nextInt(distinct);
          meta.append("url", url);
        }
        meta.append("rank", random.nextInt(100));
        g.append("payload", "x".repeat(random.nextInt(40)));
        rows.add(g);
        keys.add(url);
      }
      Path p = dir.resolve(String.format("part-%03d.parquet", i));
      ParquetRows.write(p, SCHEMA, rows, codecs[i % codecs.length], 2048);
      paths.add(p);
    }
    return new ParquetLake(paths, keys);
  }

  /** The rows an exact first-occurrence dedup keeps, worked out here from the key values. */
  public static List<String> reference(ParquetLake lake) throws IOException {
    List<String> all = new ArrayList<>();
    for (Path p : lake.files()) {
      all.addAll(ParquetRows.read(p));
    }
    Set<String> seen = new HashSet<>();
    List<String> kept = new ArrayList<>();
    for (int i = 0; i < all.size(); i++) {
      String k = lake.keys().get(i);
      if (k != null && seen.add(k)) {
        kept.add(all.get(i));
      }
    }
    return kept;
  }

  /** The rows a first-occurrence dedup drops as duplicates, in input order. */
  public static List<String> duplicates(ParquetLake lake) throws IOException {
    List<String> all = new ArrayList<>();
    for (Path p : lake.files()) {
      all.addAll(ParquetRows.read(p));
    }
    Set<String> seen = new HashSet<>();
    List<String> dropped = new ArrayList<>();
    for (int i = 0; i < all.size(); i++) {
      String k = lake.keys().get(i);
      if (k != null && !seen.add(k)) {
        dropped.add(all.get(i));
      }
    }
    return dropped;
  }
}
