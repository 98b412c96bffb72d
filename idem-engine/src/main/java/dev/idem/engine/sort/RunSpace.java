package dev.idem.engine.sort;

import dev.idem.engine.input.InputFile;
import dev.idem.engine.input.Inputs;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * The disk a sort-dedup's runs go on, measured before it reads: about how much text the inputs hold
 * and in how many records, the room the runs need compressed and plain, the room there is, and so
 * whether the runs are compressed. Standard input cannot be measured, so it counts for nothing
 * here.
 */
final class RunSpace {

  /** Run bytes per entry besides its record: fingerprint, position and length, uncompressed. */
  private static final int ENTRY_OVERHEAD = 24;

  /** A guess of the mean record size when there is nothing to measure (standard input). */
  private static final int DEFAULT_RECORD_BYTES = 128;

  private final long bytes;
  private final long recordsGuess;
  private final long compressedTemp;
  private final long plainTemp;
  private final long usable;
  private final boolean compress;

  /** The directory the room is asked of, as the refusal names it. */
  private final String where;

  private RunSpace(
      long bytes,
      long recordsGuess,
      long compressedTemp,
      long plainTemp,
      long usable,
      boolean compress,
      String where) {
    this.bytes = bytes;
    this.recordsGuess = recordsGuess;
    this.compressedTemp = compressedTemp;
    this.plainTemp = plainTemp;
    this.usable = usable;
    this.compress = compress;
    this.where = where;
  }

  /**
   * Measures the inputs and the disk the runs go on: the state directory when there is one, else
   * {@code tmp}; {@code usableSpace}, when not null, stands for the disk's free space (for tests).
   */
  static RunSpace measure(SortDedupSpec spec, List<InputFile> inputs, Path tmp, Long usableSpace)
      throws IOException {
    List<InputFile> files = inputs.stream().filter(f -> !f.isStream()).toList();
    long bytes = files.stream().mapToLong(RunSpace::estimatedTextBytes).sum();
    long recordsGuess = files.isEmpty() ? 0 : bytes / meanLineBytes(files.get(0)) + 1;
    long compressedTemp = tempBytesFor(bytes, recordsGuess);
    // uncompressed, the runs by key and by position coexist in input order: the input each
    long plainTemp = compressedTemp + (spec.order() == SortDedupSpec.Order.INPUT ? bytes : 0);
    Path runsOn = spec.state() != null ? existingAncestor(spec.state()) : tmp;
    long usable = usableSpace != null ? usableSpace : Files.getFileStore(runsOn).getUsableSpace();
    // LZ4 costs about a third of the CPU time (lz4-java's safe codec): skip it when the disk has
    // room for plain runs with a quarter to spare
    boolean compress =
        spec.compressRuns() != null ? spec.compressRuns() : plainTemp + plainTemp / 4 > usable;
    String where = spec.state() != null ? "the state directory " + spec.state() : "--tmp " + tmp;
    return new RunSpace(bytes, recordsGuess, compressedTemp, plainTemp, usable, compress, where);
  }

  /** The room runs take for {@code records} records of {@code inputBytes} in all. */
  static long tempBytesFor(long inputBytes, long records) {
    // LZ4 about halves text, and in input order the runs by key and by position coexist for
    // a while: about the input's size, plus what does not compress
    return inputBytes + ENTRY_OVERHEAD * records;
  }

  /** Whether the runs are compressed: as asked, else when plain runs would crowd the disk. */
  boolean compress() {
    return compress;
  }

  /** Refuses a new job whose runs would not fit: better now than after hours of reading. */
  void check() throws IOException {
    RunDirectory.checkSpace(where, compress ? compressedTemp : plainTemp, usable);
  }

  /** The mean record size measured, to split the sort buffer between records and index. */
  int meanRecordBytes() {
    return recordsGuess == 0
        ? DEFAULT_RECORD_BYTES
        : (int) Math.max(8, Math.min(1 << 20, bytes / recordsGuess));
  }

  /** The deepest existing directory at or above {@code path} (a state may not exist yet). */
  private static Path existingAncestor(Path path) {
    Path p = path.toAbsolutePath();
    while (p != null && !Files.isDirectory(p)) {
      p = p.getParent();
    }
    return p == null ? Path.of(".") : p;
  }

  /** About how many bytes of text {@code file} holds: its size, decompressed if compressed. */
  private static long estimatedTextBytes(InputFile file) {
    try {
      return file.compression().estimatedBytes(file.size());
    } catch (IOException e) {
      return file.size(); // unreadable: reading it says so, naming it
    }
  }

  /** The mean line length of the first 64 KiB of {@code file}: a guess at record sizes. */
  private static long meanLineBytes(InputFile file) throws IOException {
    try (InputStream in = Inputs.open(file.path(), InputStream.nullInputStream())) {
      byte[] sample = in.readNBytes(64 << 10);
      long lines = sample.length > 0 && sample[sample.length - 1] != '\n' ? 1 : 0;
      for (byte b : sample) {
        lines += b == '\n' ? 1 : 0;
      }
      return Math.max(1, sample.length / Math.max(1, lines));
    }
  }
}
