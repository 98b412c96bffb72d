package dev.idem.engine.records;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonValue;
import dev.idem.engine.input.Compression;
import java.util.List;
import java.util.Locale;

/** How records are laid out in an input. */
public enum RecordFormat {
  /** One JSON value per line (JSON Lines). */
  JSONL,
  /** Comma-separated values (RFC 4180): quoted fields may hold commas, quotes and newlines. */
  CSV,
  /** Tab-separated values: one record per line, fields split on tabs, no quoting. */
  TSV,
  /** One record per line; the whole line is the key. */
  LINES,
  /**
   * Apache Parquet files: rows, keyed by columns. Read by {@code idem dedup} through the
   * idem-parquet module; the text readers here refuse it.
   */
  PARQUET;

  /** The lower-case name used on the command line and in state files. */
  @JsonValue
  public String displayName() {
    return name().toLowerCase(Locale.ROOT);
  }

  /**
   * The format a key implies when none is given: {@link #JSONL} for a JSON field, {@link #CSV} for
   * a column ({@link #TSV} when an input is named {@code .tsv}, compressed or not), {@link #LINES}
   * for the whole line.
   */
  public static RecordFormat impliedBy(KeySpec key, List<String> inputs) {
    if (key instanceof KeySpec.JsonField) {
      return JSONL;
    }
    if (key instanceof KeySpec.Column) {
      return inputs.stream().anyMatch(i -> Compression.withoutSuffix(i).endsWith(".tsv"))
          ? TSV
          : CSV;
    }
    return LINES;
  }

  /** The format named {@code name}, or an exception listing the known ones. */
  @JsonCreator
  public static RecordFormat byName(String name) {
    for (RecordFormat f : values()) {
      if (f.displayName().equals(name.toLowerCase(Locale.ROOT))) {
        return f;
      }
    }
    throw new IllegalArgumentException(
        "unknown format '" + name + "'; known formats: jsonl, csv, tsv, lines");
  }
}
