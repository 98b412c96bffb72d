package dev.idem.cli;

import dev.idem.core.KeyNormalizer;
import dev.idem.engine.records.KeySpec;
import dev.idem.engine.records.RecordFormat;
import java.util.List;
import java.util.Locale;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Option;

/**
 * What a record is and what its key is: the options {@code dedup} and {@code sort-dedup} share, and
 * how the format and header are inferred when not given. A picocli mixin.
 */
final class RecordOptions {

  static final class KeyOptions {
    @Option(
        names = "--key",
        paramLabel = "FIELD",
        description =
            "JSON Lines: the field that identifies a record, by name (id) or JSON "
                + "Pointer (/meta/url). Its value as text: strings unescaped, numbers as written. "
                + "Parquet: the key column (id, meta.url or /meta/url), or columns a,b.")
    String jsonKey;

    @Option(
        names = "--column",
        paramLabel = "NAME|N",
        description =
            "CSV/TSV: the column that identifies a record, by header name or 1-based " + "number.")
    String column;

    @Option(names = "--whole-line", description = "The whole line is the key.")
    boolean wholeLine;

    @Option(
        names = "--content",
        paramLabel = "FIELD",
        description =
            "JSON Lines: dedup documents by the exact text of this field (name or "
                + "pointer), by its 128-bit fingerprint.")
    String content;
  }

  @ArgGroup(exclusive = true, multiplicity = "1", heading = "%nKey (exactly one):%n")
  KeyOptions key;

  @Option(
      names = "--format",
      paramLabel = "FORMAT",
      converter = ChoiceConverter.Format.class,
      completionCandidates = ChoiceConverter.Format.class,
      description =
          "jsonl, csv, tsv, lines or parquet (default: parquet when every input is a "
              + ".parquet file (dedup only), else jsonl for --key/--content, csv for --column "
              + "(tsv for .tsv inputs), lines for --whole-line).")
  RecordFormat format;

  @Option(
      names = "--delimiter",
      paramLabel = "CHAR",
      description =
          "The field separator of CSV/TSV inputs with --column: one ASCII character, like ';' or "
              + "'|', or \\t for a tab (default: ',' for csv, tab for tsv). CSV's quoting still "
              + "applies; tsv has none.")
  String delimiter;

  @Option(
      names = "--header",
      negatable = true,
      description =
          "CSV/TSV inputs start with a header line, written once to the output "
              + "(default: yes when --column is a name, no when it is a number).")
  Boolean header;

  @Option(
      names = "--normalize",
      paramLabel = "STEPS",
      defaultValue = "identity",
      description =
          "Key normalisation before hashing: trim, lowercase, nfc, "
              + "collapse-whitespace, strip-prefix=PREFIX, comma-separated (default: none).")
  String normalize;

  /** The key spec; {@link IllegalArgumentException} for a bad field or column. */
  KeySpec keySpec() {
    if (delimiter != null && key.column == null) {
      throw new IllegalArgumentException(
          "--delimiter applies to csv and tsv inputs, with --column");
    }
    return key.jsonKey != null
        ? KeySpec.jsonField(key.jsonKey, false)
        : key.content != null
            ? KeySpec.jsonField(key.content, true)
            : key.column != null ? column() : new KeySpec.WholeLine();
  }

  private KeySpec column() {
    KeySpec.Column c = KeySpec.column(key.column);
    if (delimiter == null) {
      return c;
    }
    String d = delimiter.equals("\\t") || delimiter.equalsIgnoreCase("tab") ? "\t" : delimiter;
    if (d.length() != 1) {
      throw new IllegalArgumentException(
          "--delimiter takes one character, got '" + delimiter + "': like ';', '|' or \\t");
    }
    return c.withDelimiter(d.charAt(0));
  }

  /** Whether the key is a {@code --content} document. */
  boolean isContent() {
    return key.content != null;
  }

  /**
   * The format given, or the one the key (and the input names) imply; for the text jobs, so Parquet
   * (given, or every input named {@code .parquet}) is refused here: only {@code dedup} reads it,
   * before it asks for a text format.
   */
  RecordFormat format(KeySpec keySpec, List<String> inputs) {
    if (format == RecordFormat.PARQUET
        || (format == null
            && !inputs.isEmpty()
            && inputs.stream().allMatch(i -> i.toLowerCase(Locale.ROOT).endsWith(".parquet")))) {
      throw new IllegalArgumentException(
          "Parquet inputs are read by idem dedup only; this command reads text (jsonl, csv, "
              + "tsv, lines)");
    }
    return format != null ? format : RecordFormat.impliedBy(keySpec, inputs);
  }

  /** Whether inputs have a header line: as given, else when the column is named. */
  boolean header(KeySpec keySpec, RecordFormat recordFormat) {
    boolean hasHeader =
        header != null ? header : keySpec instanceof KeySpec.Column c && c.name() != null;
    if (hasHeader && recordFormat != RecordFormat.CSV && recordFormat != RecordFormat.TSV) {
      throw new IllegalArgumentException("--header applies to csv and tsv inputs");
    }
    return hasHeader;
  }

  KeyNormalizer normalizer() {
    return KeyNormalizer.parse(normalize);
  }
}
