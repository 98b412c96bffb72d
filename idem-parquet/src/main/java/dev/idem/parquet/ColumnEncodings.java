package dev.idem.parquet;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import org.apache.parquet.column.EncodingStats;
import org.apache.parquet.hadoop.metadata.BlockMetaData;
import org.apache.parquet.hadoop.metadata.ColumnChunkMetaData;
import org.apache.parquet.schema.MessageType;

/**
 * Which output columns are written without a dictionary: those whose values hardly repeat, where
 * the writer would build a dictionary for every row group only to throw it away (parquet-java
 * encodes a chunk's first pages with a dictionary and falls back once it outgrows its page: all the
 * hashing of values into it is lost work).
 *
 * <p>Decided once per job from what cannot change between a run and its resume, so that a resumed
 * job writes the same bytes as an uninterrupted one: the key and the first input's first row group.
 *
 * <ul>
 *   <li>A one-column key: the output holds each key once, so that column never repeats.
 *   <li>A column whose chunk in the first row group has data pages not dictionary-encoded: the
 *       input's writer fell back too, so its values hardly repeat there.
 * </ul>
 */
final class ColumnEncodings {

  private final Set<String> plain;

  private ColumnEncodings(Set<String> plain) {
    this.plain = plain;
  }

  /** Every column with a dictionary, as parquet-java writes by default. */
  static ColumnEncodings dictionaryEverywhere() {
    return new ColumnEncodings(Set.of());
  }

  /**
   * The choice for {@code schema}, keyed by {@code key}, from {@code firstGroup} (the first input's
   * first row group; {@code null} when it has none).
   */
  static ColumnEncodings choose(MessageType schema, KeyColumns key, BlockMetaData firstGroup) {
    Set<String> plain = new TreeSet<>();
    if (key.columns().size() == 1) {
      plain.add(dotted(key.columns().get(0).getPath()));
    }
    if (firstGroup != null) {
      for (ColumnChunkMetaData c : firstGroup.getColumns()) {
        EncodingStats stats = c.getEncodingStats();
        if (stats != null && stats.hasNonDictionaryEncodedPages()) {
          plain.add(c.getPath().toDotString());
        }
      }
    }
    plain.retainAll(columns(schema));
    return new ColumnEncodings(Set.copyOf(plain));
  }

  /** The columns written without a dictionary, as dotted paths. */
  Set<String> plainColumns() {
    return plain;
  }

  private static List<String> columns(MessageType schema) {
    List<String> out = new ArrayList<>();
    for (String[] p : schema.getPaths()) {
      out.add(dotted(p));
    }
    return out;
  }

  private static String dotted(String[] path) {
    return String.join(".", path);
  }
}
