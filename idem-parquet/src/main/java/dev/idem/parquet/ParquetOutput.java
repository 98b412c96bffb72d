package dev.idem.parquet;

import dev.idem.engine.JobException;
import dev.idem.engine.input.InputFile;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import org.apache.parquet.conf.ParquetConfiguration;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;
import org.apache.parquet.io.LocalOutputFile;

/**
 * Where a Parquet job writes one kind of row (kept, or dropped): a directory of part files ({@link
 * PartFiles}), or, for a job without a state, one file. A part is opened at its first row and
 * published whole by {@link #close}.
 */
final class ParquetOutput {

  private final Path path;
  private final PartFiles parts;
  private final ParquetConfiguration conf;
  private final CompressionCodecName codec;
  private final long rowGroupBytes;
  private RowCopy.Sink sink;

  /**
   * @param single write one file at {@code path} rather than part files in it
   */
  ParquetOutput(
      Path path,
      boolean single,
      ParquetConfiguration conf,
      CompressionCodecName codec,
      long rowGroupBytes)
      throws IOException {
    this.path = path;
    this.parts = single ? null : new PartFiles(path);
    this.conf = conf;
    this.codec = codec;
    this.rowGroupBytes = rowGroupBytes;
  }

  /** Whether {@code path} names one output file ({@code .parquet}, not a directory). */
  static boolean isSingleFile(Path path) {
    return ParquetDedup.isParquetName(path.getFileName().toString()) && !Files.isDirectory(path);
  }

  Path path() {
    return path;
  }

  /** The open part, opened as part {@code index} for rows copied by {@code copy} if none is. */
  RowCopy.Sink sink(RowCopy copy, long index) throws IOException {
    if (sink == null) {
      Path target = parts == null ? inProgress(path) : parts.inProgress(index);
      Files.deleteIfExists(target);
      sink = copy.sink(new LocalOutputFile(target), conf, codec, rowGroupBytes);
    }
    return sink;
  }

  boolean isOpen() {
    return sink != null;
  }

  /** Closes the open part and publishes it as part {@code index} (or as the one file). */
  void close(long index) throws IOException {
    sink.close();
    sink = null;
    if (parts == null) {
      Files.move(inProgress(path), path, StandardCopyOption.REPLACE_EXISTING);
    } else {
      parts.publish(index);
    }
  }

  /** Closes the open part, if any, without publishing it: a resume deletes it. */
  void abandon() {
    if (sink != null) {
      try {
        sink.close();
      } catch (IOException | RuntimeException e) {
        // left under its in-progress name, which no reader of *.parquet sees and a resume deletes
      }
      sink = null;
    }
  }

  /** Deletes the parts from {@code count} on; returns how many files were deleted. */
  int cutBackTo(long count) throws IOException {
    return parts == null ? 0 : parts.cutBackTo(count);
  }

  /** Whether part files are there already. */
  boolean hasParts() throws IOException {
    return parts != null && parts.hasParts();
  }

  private static Path inProgress(Path file) {
    return file.resolveSibling("." + file.getFileName() + ".inprogress");
  }

  /**
   * Refuses paths that would lose data: an output that is or holds an input or the state, outputs
   * that overlap, a resumable job writing one file, a one-file output beside a directory.
   */
  static void refuseUnsafe(ParquetDedup job, List<InputFile> inputs) throws JobException {
    List<Path> outputs = new ArrayList<>(List.of(job.output));
    if (job.dropped != null) {
      outputs.add(job.dropped);
    }
    for (Path output : outputs) {
      for (InputFile f : inputs) {
        if (inside(Path.of(f.path()), output)) {
          throw new JobException(
              output
                  + " holds the input "
                  + f.path()
                  + ": the output would overwrite or mix with the inputs; give another path");
        }
      }
      if (job.state != null && inside(job.state, output)) {
        throw new JobException(
            "--state " + job.state + " is inside " + output + ": give them apart");
      }
    }
    if (job.dropped != null
        && (inside(job.dropped, job.output) || inside(job.output, job.dropped))) {
      throw new JobException(
          "--dropped " + job.dropped + " and -o " + job.output + " overlap: give them apart");
    }
    boolean single = isSingleFile(job.output);
    if (single && job.state != null) {
      String name = job.output.toString();
      throw new JobException(
          "-o "
              + job.output
              + " with --state: a Parquet file is readable only once it is closed, so a "
              + "resumable job writes part files; give a directory, e.g. -o "
              + name.substring(0, name.length() - ".parquet".length())
              + "/");
    }
    if (job.dropped != null && isSingleFile(job.dropped) != single) {
      throw new JobException(
          "--dropped "
              + job.dropped
              + " and -o "
              + job.output
              + ": give both as directories of part files, or (without --state) both as files "
              + "ending in .parquet");
    }
  }

  private static boolean inside(Path p, Path dir) {
    return p.toAbsolutePath().normalize().startsWith(dir.toAbsolutePath().normalize());
  }
}
