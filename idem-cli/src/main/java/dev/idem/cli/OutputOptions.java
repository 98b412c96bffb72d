package dev.idem.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectWriter;
import com.fasterxml.jackson.databind.SerializationFeature;
import dev.idem.engine.run.JobReport;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Path;
import picocli.CommandLine;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;

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
      description =
          "Write the final summary as JSON to FILE, or to standard output for - (then give the "
              + "records -o FILE).")
  Path statsJson;

  @Option(
      names = {"-q", "--quiet"},
      description = "No progress and no summary.")
  boolean quiet;

  /** The output file, or null for standard output: {@code -o -} means it, as for most tools. */
  Path file() {
    return output == null || isDash(output) ? null : output;
  }

  /** The {@code --stats-json} file; null for none, and for {@code -} (standard output). */
  Path statsFile() {
    return statsJson == null || isDash(statsJson) ? null : statsJson;
  }

  /**
   * Refuses {@code --stats-json -} when the records go to standard output too: the JSON would end
   * up among them.
   */
  void requireOneUseOfStandardOutput(CommandLine commandLine) {
    if (statsJson != null && isDash(statsJson) && file() == null) {
      throw new ParameterException(
          commandLine,
          "--stats-json - writes the summary to standard output, where the records go too: "
              + "give the records -o FILE, or the summary --stats-json FILE");
    }
  }

  /** Writes the job's report where {@code --stats-json} says: its file, or standard output. */
  void writeStats(Io io, JobReport result) throws IOException {
    if (statsJson == null) {
      return;
    }
    Object stats = result.report();
    ObjectWriter json = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT).writer();
    if (statsFile() != null) {
      json.writeValue(statsJson.toFile(), stats);
      return;
    }
    OutputStream out = new NamedOutput("<stdout>", io.data());
    out.write(json.writeValueAsBytes(stats));
    out.write('\n');
    out.flush();
  }

  private static boolean isDash(Path p) {
    return p.toString().equals("-");
  }
}
