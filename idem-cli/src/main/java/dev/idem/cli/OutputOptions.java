package dev.idem.cli;

import java.nio.file.Path;
import picocli.CommandLine.Option;

/**
 * Where a job's records and its report go: the options {@code dedup} and {@code sort-dedup} share.
 * A picocli mixin. ({@code split} writes a directory of shards and reports no progress, so it has
 * its own {@code -o} and {@code -q}.)
 */
final class OutputOptions {

  @Option(
      names = {"-o", "--output"},
      paramLabel = "OUT",
      description =
          "Output file, or - for standard output (the default). A name ending in .gz or .zst is "
              + "written compressed, one gzip member or zstd frame per checkpoint, so that a "
              + "resumed job appends.")
  Path output;

  @Option(
      names = "--stats-json",
      paramLabel = "FILE",
      description = "Write the final summary as JSON to FILE.")
  Path statsJson;

  @Option(
      names = {"-q", "--quiet"},
      description = "No progress and no summary.")
  boolean quiet;

  /** The output file, or null for standard output: {@code -o -} means it, as for most tools. */
  Path file() {
    return output == null || output.toString().equals("-") ? null : output;
  }
}
