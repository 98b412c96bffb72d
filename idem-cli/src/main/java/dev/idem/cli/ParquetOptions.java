package dev.idem.cli;

import dev.idem.parquet.ParquetDedup;
import picocli.CommandLine.Option;

/** The options of {@code dedup} that only Parquet inputs have. A picocli mixin. */
final class ParquetOptions {

  @Option(
      names = "--key-as-text",
      description =
          "Parquet: compare key values as text, so 1 in an int64 column and \"1\" in a string "
              + "column are one key (default: the type is part of the key).")
  boolean keyAsText;

  @Option(
      names = "--parquet-compression",
      paramLabel = "CODEC",
      defaultValue = "zstd",
      converter = CompressionConverter.class,
      completionCandidates = CompressionConverter.class,
      description = "Parquet output: zstd, snappy, gzip or none (default: ${DEFAULT-VALUE}).")
  ParquetDedup.Compression compression;

  @Option(
      names = "--parquet-row-group",
      paramLabel = "SIZE",
      defaultValue = "128m",
      converter = SizeConverter.class,
      description = "Parquet output: row-group size (default: ${DEFAULT-VALUE}).")
  long rowGroupBytes;

  /** zstd, snappy, gzip, none in any case. */
  static final class CompressionConverter extends ChoiceConverter<ParquetDedup.Compression> {
    CompressionConverter() {
      super(ParquetDedup.Compression.values());
    }
  }
}
