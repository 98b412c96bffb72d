package dev.idem.core.filter;

import dev.idem.core.Fingerprinter;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.nio.file.AccessDeniedException;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.concurrent.ThreadLocalRandom;

/**
 * A filter saved with everything needed to query it the way it was built: type, parameters, hash
 * algorithm, seed and key normaliser. The byte layout is specified in {@code docs/FORMAT.md}; in
 * short: a header padded to a multiple of 64 bytes and closed by its CRC32C, the payload as
 * little-endian 64-bit words, and the payload's CRC32C.
 *
 * <p>One format, two carriers: a file ({@link #write}, {@link #open}) or a byte array ({@link
 * #toBytes}, {@link #fromBytes}) for engines that keep state as bytes, such as Flink operator
 * state. The array holds exactly the bytes the file would, so either can be turned into the other.
 *
 * <p>Writing a file is atomic: a temporary file in the same directory is written and fsynced,
 * renamed over the target, and the directory is fsynced, so a crash leaves the old file or the new
 * one, never a mix. Reading refuses, with a {@link SnapshotException} naming the file (or the
 * array) and the fault, anything truncated, corrupted, of an unknown type or of a newer format
 * version.
 */
public final class FilterSnapshot {

  /** The format version this build writes and the newest it reads. */
  public static final int FORMAT_VERSION = 1;

  /** The largest snapshot one byte array can carry; larger filters go to files. */
  static final long MAX_ARRAY_BYTES = Integer.MAX_VALUE - 8;

  /** How to bring a snapshot's payload into memory. */
  public enum LoadMode {
    /** Copy the payload into heap arrays: costs heap and a full read, then the fastest queries. */
    HEAP,
    /**
     * Map the file privately (copy-on-write): no heap, pages load on first touch, changes stay in
     * this process. Best for large filters and fast restarts. The checksum is still verified, so
     * opening reads the whole file once. A file this process may not write is mapped read-only, and
     * a change to it throws {@link java.nio.ReadOnlyBufferException}.
     */
    MAP
  }

  private final Path file;
  private final int formatVersion;
  private final MembershipFilter filter;
  private final Fingerprinter fingerprinter;
  private final LoadMode loadMode;
  private final MappedPayload mapped;

  private FilterSnapshot(Path file, SnapshotFormat.Decoded decoded, LoadMode loadMode) {
    this.file = file;
    this.formatVersion = decoded.version();
    this.filter = decoded.filter();
    this.fingerprinter = decoded.fingerprinter();
    this.loadMode = loadMode;
    this.mapped = decoded.mapped();
  }

  /**
   * Whether the payload is mapped and verified page by page as the filter reads it (a snapshot
   * written by {@link #writePaged}, opened with {@link LoadMode#MAP}), rather than verified whole
   * when it was opened.
   */
  public boolean verifiedLazily() {
    return mapped != null && mapped.guarded();
  }

  /**
   * Verifies every page not verified yet (a no-op unless {@link #verifiedLazily()}): what a
   * background check calls, so that a damaged page is found before anything asks for it.
   *
   * @throws SnapshotDamagedException naming the file and the first page that fails
   */
  public void verifyAllPages() {
    if (verifiedLazily()) {
      mapped.checkAll();
    }
  }

  /** Pages verified so far, and pages in all (both 0 unless {@link #verifiedLazily()}). */
  public long[] pagesVerified() {
    return verifiedLazily() ? new long[] {mapped.pagesVerified(), mapped.pages()} : new long[2];
  }

  /** The file this snapshot was read from, or {@code null} when it came from a byte array. */
  public Path file() {
    return file;
  }

  /** The format version found in the snapshot. */
  public int formatVersion() {
    return formatVersion;
  }

  /** The filter, ready to use; cast to its {@link MembershipFilter#type() type}'s class. */
  public MembershipFilter filter() {
    return filter;
  }

  /** How keys become fingerprints for this filter. */
  public Fingerprinter fingerprinter() {
    return fingerprinter;
  }

  /** How the payload was loaded ({@link LoadMode#HEAP} for a byte array). */
  public LoadMode loadMode() {
    return loadMode;
  }

  /**
   * Writes {@code filter} and the fingerprinter that feeds it to {@code file}, atomically. Stop
   * concurrent writers first: a change that races with the write may or may not be saved.
   *
   * @throws IllegalArgumentException for a filter type that has no snapshot form
   */
  public static void write(Path file, MembershipFilter filter, Fingerprinter fingerprinter)
      throws IOException {
    write(file, SnapshotFormat.encode(filter, fingerprinter));
  }

  /**
   * As {@link #write}, with a CRC32C for every 4 KiB page of the payload (docs/FORMAT.md, "page
   * checksums"): {@link #map} then verifies each page when the filter first reads it, rather than
   * the whole payload at open, so a large snapshot is usable in milliseconds and never answers from
   * bytes that were not verified. {@link #read} and {@link #fromBytes} still verify everything.
   */
  public static void writePaged(Path file, MembershipFilter filter, Fingerprinter fingerprinter)
      throws IOException {
    write(file, SnapshotFormat.encode(filter, fingerprinter, true));
  }

  private static void write(Path file, SnapshotFormat.Encoded snapshot) throws IOException {
    try {
      writeAtomically(file.toAbsolutePath(), snapshot);
    } catch (IOException e) {
      // a full disk's "No space left on device" does not say which file it was writing
      throw new IOException(file + ": cannot write the snapshot: " + e.getMessage(), e);
    }
  }

  /**
   * The bytes {@link #write} would put in a file, as one array. Stop concurrent writers first.
   *
   * @throws IllegalArgumentException for a filter type that has no snapshot form, or a filter too
   *     large for one array (2 GiB): write those to a file instead
   */
  public static byte[] toBytes(MembershipFilter filter, Fingerprinter fingerprinter) {
    SnapshotFormat.Encoded snapshot = SnapshotFormat.encode(filter, fingerprinter);
    long size = snapshot.size();
    if (size > MAX_ARRAY_BYTES) {
      throw new IllegalArgumentException(
          String.format(
              java.util.Locale.ROOT,
              "a snapshot of %,d bytes does not fit one byte array (2 GiB); save %s to a file with "
                  + "FilterSnapshot.write instead",
              size,
              filter));
    }
    byte[] bytes = new byte[(int) size];
    try (ByteArrayChannel out = ByteArrayChannel.writing(bytes)) {
      snapshot.writeTo(out);
    } catch (IOException e) {
      throw new UncheckedIOException("writing to an array cannot fail", e);
    }
    return bytes;
  }

  /**
   * Reads a snapshot from the bytes of {@link #toBytes} (or of a snapshot file) into the heap,
   * verifying both checksums.
   *
   * @throws SnapshotException when the bytes are not a valid snapshot this build can read
   */
  public static FilterSnapshot fromBytes(byte[] bytes) throws SnapshotException {
    try (ByteArrayChannel in = ByteArrayChannel.reading(bytes)) {
      return new FilterSnapshot(null, SnapshotFormat.decode(null, in, null), LoadMode.HEAP);
    } catch (SnapshotException e) {
      throw e;
    } catch (IOException e) {
      // the decoder checks every length against the array before it reads
      throw new UncheckedIOException("reading from an array cannot fail", e);
    }
  }

  /** Reads a snapshot file into the heap. */
  public static FilterSnapshot read(Path file) throws IOException {
    return open(file, LoadMode.HEAP);
  }

  /** Maps a snapshot file (see {@link LoadMode#MAP}). */
  public static FilterSnapshot map(Path file) throws IOException {
    return open(file, LoadMode.MAP);
  }

  /**
   * Opens a snapshot file, verifying both checksums.
   *
   * @throws SnapshotException when the file is not a valid snapshot this build can read
   * @throws NoSuchFileException when there is no such file
   */
  public static FilterSnapshot open(Path file, LoadMode mode) throws IOException {
    try (FileChannel in = openForLoading(file, mode)) {
      return new FilterSnapshot(
          file, SnapshotFormat.decode(file, in, mode == LoadMode.MAP ? in : null), mode);
    }
  }

  private static void writeAtomically(Path target, SnapshotFormat.Encoded snapshot)
      throws IOException {
    Path dir = target.getParent();
    Path tmp = newTemporary(dir, target.getFileName().toString());
    try {
      try (FileChannel out =
          FileChannel.open(tmp, StandardOpenOption.WRITE, StandardOpenOption.TRUNCATE_EXISTING)) {
        snapshot.writeTo(out);
        out.force(true);
      }
      try {
        Files.move(
            tmp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
      } catch (AtomicMoveNotSupportedException e) {
        throw new IOException(dir + ": cannot rename atomically in this directory", e);
      }
      syncDirectory(dir);
    } finally {
      Files.deleteIfExists(tmp);
    }
  }

  /**
   * A new, empty {@code .NAME.<random>.tmp} in {@code dir}, with the mode the user's umask gives
   * new files, as the snapshot it becomes should have ({@code Files.createTempFile} makes 0600).
   */
  private static Path newTemporary(Path dir, String name) throws IOException {
    while (true) {
      Path tmp =
          dir.resolve(
              "."
                  + name
                  + "."
                  + Long.toUnsignedString(ThreadLocalRandom.current().nextLong())
                  + ".tmp");
      try {
        return Files.createFile(tmp);
      } catch (FileAlreadyExistsException e) {
        // another writer's: draw again
      }
    }
  }

  /**
   * A private map needs a channel open for writing, although it never writes; a file we may only
   * read is opened read-only (and then mapped read-only).
   */
  private static FileChannel openForLoading(Path file, LoadMode mode) throws IOException {
    if (mode == LoadMode.MAP) {
      try {
        return FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE);
      } catch (AccessDeniedException e) {
        // fall through to read-only
      }
    }
    return FileChannel.open(file, StandardOpenOption.READ);
  }

  private static void syncDirectory(Path dir) {
    try (FileChannel d = FileChannel.open(dir, StandardOpenOption.READ)) {
      d.force(true);
    } catch (IOException e) {
      // Some file systems refuse to open or sync a directory; the rename itself is still atomic.
    }
  }
}
