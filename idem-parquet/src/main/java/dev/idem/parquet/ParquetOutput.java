package dev.idem.parquet;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
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
}
