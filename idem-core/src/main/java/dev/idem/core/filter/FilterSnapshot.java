package dev.idem.core.filter;

import dev.idem.core.Fingerprinter;
import dev.idem.core.HashAlgorithm;
import dev.idem.core.KeyNormalizer;
import java.io.EOFException;
import java.io.IOException;
import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.AccessDeniedException;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;
import java.util.Locale;
import java.util.zip.CRC32C;

/**
 * A filter saved to one file, with everything needed to query it the way it was built: type,
 * parameters, hash algorithm, seed and key normaliser. The byte layout is specified in {@code
 * docs/FORMAT.md}; in short: a header padded to a multiple of 64 bytes and closed by its CRC32C,
 * the payload as little-endian 64-bit words, and the payload's CRC32C.
 *
 * <p>Writing is atomic: a temporary file in the same directory is written and fsynced, renamed
 * over the target, and the directory is fsynced, so a crash leaves the old file or the new one,
 * never a mix. Reading refuses, with a {@link SnapshotException} naming the file and the fault,
 * anything truncated, corrupted, of an unknown type or of a newer format version.
 */
public final class FilterSnapshot {

  /** The format version this build writes and the newest it reads. */
  public static final int FORMAT_VERSION = 1;

  static final byte[] MAGIC = "IDEMFLTR".getBytes(StandardCharsets.US_ASCII);
  static final int FIXED_HEADER_BYTES = 64;
  static final int ALIGNMENT = 64;
  static final int MAX_NORMALIZER_SPEC_BYTES = 4096;

  /** How to bring a snapshot's payload into memory. */
  public enum LoadMode {
    /** Copy the payload into heap arrays: costs heap and a full read, then the fastest queries. */
    HEAP,
    /**
     * Map the file privately (copy-on-write): no heap, pages load on first touch, changes stay in
     * this process. Best for large filters and fast restarts. The checksum is still verified, so
     * opening reads the whole file once. A file this process may not write is mapped read-only,
     * and a change to it throws {@link java.nio.ReadOnlyBufferException}.
     */
    MAP
  }

  private final Path file;
  private final int formatVersion;
  private final MembershipFilter filter;
  private final Fingerprinter fingerprinter;
  private final LoadMode loadMode;

  private FilterSnapshot(Path file, int formatVersion, MembershipFilter filter,
      Fingerprinter fingerprinter, LoadMode loadMode) {
    this.file = file;
    this.formatVersion = formatVersion;
    this.filter = filter;
    this.fingerprinter = fingerprinter;
    this.loadMode = loadMode;
  }

  /** The file this snapshot was read from. */
  public Path file() {
    return file;
  }

  /** The format version found in the file. */
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

  /** How the payload was loaded. */
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
    if (!(filter instanceof SnapshotSupport support)) {
      throw new IllegalArgumentException(
          filter.getClass().getName() + " cannot be saved as an idem snapshot");
    }
    Path target = file.toAbsolutePath();
    ByteBuffer header = encodeHeader(filter, support, fingerprinter);
    try {
      writeAtomically(target, header, support);
    } catch (IOException e) {
      // a full disk's "No space left on device" does not say which file it was writing
      throw new IOException(file + ": cannot write the snapshot: " + e.getMessage(), e);
    }
  }

  private static void writeAtomically(Path target, ByteBuffer header, SnapshotSupport support)
      throws IOException {
    Path dir = target.getParent();
    Path tmp = Files.createTempFile(dir, "." + target.getFileName() + ".", ".tmp");
    try {
      try (FileChannel out = FileChannel.open(tmp, StandardOpenOption.WRITE,
          StandardOpenOption.TRUNCATE_EXISTING)) {
        writeFully(out, header);
        CRC32C payloadCrc = new CRC32C();
        for (BitArray array : support.payload()) {
          array.writeTo(out, payloadCrc);
        }
        ByteBuffer trailer = ByteBuffer.allocate(4).order(ByteOrder.LITTLE_ENDIAN);
        trailer.putInt((int) payloadCrc.getValue()).flip();
        writeFully(out, trailer);
        out.force(true);
      }
      try {
        Files.move(tmp, target, StandardCopyOption.ATOMIC_MOVE,
            StandardCopyOption.REPLACE_EXISTING);
      } catch (AtomicMoveNotSupportedException e) {
        throw new IOException(dir + ": cannot rename atomically in this directory", e);
      }
      syncDirectory(dir);
    } finally {
      Files.deleteIfExists(tmp);
    }
  }

  /** Reads a snapshot into the heap. */
  public static FilterSnapshot read(Path file) throws IOException {
    return open(file, LoadMode.HEAP);
  }

  /** Maps a snapshot (see {@link LoadMode#MAP}). */
  public static FilterSnapshot map(Path file) throws IOException {
    return open(file, LoadMode.MAP);
  }

  /**
   * Opens a snapshot, verifying both checksums.
   *
   * @throws SnapshotException when the file is not a valid snapshot this build can read
   * @throws NoSuchFileException when there is no such file
   */
  public static FilterSnapshot open(Path file, LoadMode mode) throws IOException {
    try (FileChannel in = openForLoading(file, mode)) {
      long size = in.size();
      Header h = readHeader(file, in, size);
      PayloadReader payload = new PayloadReader(file, in, mode, h.headerBytes, size - 4);
      MembershipFilter filter;
      try {
        ByteBuffer parameters = h.parameters.duplicate().order(ByteOrder.LITTLE_ENDIAN);
        filter = Filters.restore(h.type, parameters, h.count, payload);
        if (parameters.hasRemaining()) {
          throw new IllegalArgumentException(parameters.remaining()
              + " unread bytes in the parameter block");
        }
      } catch (IllegalArgumentException e) {
        throw new SnapshotException(file, "inconsistent parameters: " + e.getMessage());
      } catch (BufferUnderflowException e) {
        throw new SnapshotException(file, "inconsistent parameters: the "
            + h.type.displayName() + " parameter block is too short");
      }
      if (payload.position < payload.end) {
        throw new SnapshotException(file, String.format(Locale.ROOT,
            "%,d unexpected bytes after the payload", payload.end - payload.position));
      }
      ByteBuffer trailer = ByteBuffer.allocate(4).order(ByteOrder.LITTLE_ENDIAN);
      readFully(in, trailer, payload.end);
      if (trailer.getInt(0) != (int) payload.crc.getValue()) {
        throw new SnapshotException(file, "payload checksum mismatch: the filter data is corrupt");
      }
      return new FilterSnapshot(file, h.version, filter,
          Fingerprinter.of(h.algorithm, h.seed, h.normalizer), mode);
    }
  }

  /** Reads or maps payload arrays in order, checking that each lies inside the file. */
  private static final class PayloadReader implements SnapshotSupport.Payload {
    private final Path file;
    private final FileChannel in;
    private final LoadMode mode;
    private final long end;
    private final CRC32C crc = new CRC32C();
    private long position;

    PayloadReader(Path file, FileChannel in, LoadMode mode, long start, long end) {
      this.file = file;
      this.in = in;
      this.mode = mode;
      this.position = start;
      this.end = end;
    }

    @Override
    public BitArray next(long words) throws IOException {
      long bytes = words * Long.BYTES;
      if (words < 0 || bytes > end - position) {
        throw new SnapshotException(file, String.format(Locale.ROOT,
            "truncated: the payload needs %,d more bytes at offset %,d, the file has %,d",
            bytes, position, Math.max(0, end - position)));
      }
      BitArray array;
      if (mode == LoadMode.MAP) {
        array = MappedBitArray.map(in, position, words, crc);
      } else {
        in.position(position);
        array = HeapBitArray.read(in, words, crc);
      }
      position += bytes;
      return array;
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

  /** The decoded, checked header. */
  private record Header(int version, int headerBytes, FilterType type, HashAlgorithm algorithm,
      long seed, long count, KeyNormalizer normalizer, ByteBuffer parameters) {}

  /*
   * Header layout, little-endian (docs/FORMAT.md):
   *  0 8 magic "IDEMFLTR"     14 2 hash algorithm id     36 4 parameter block bytes P
   *  8 2 format version       16 8 hash seed             40 24 reserved, zero
   * 10 2 header bytes H       24 8 count                 64 L normalizer spec, UTF-8
   * 12 2 filter type id       32 4 normalizer bytes L    64+L P parameter block
   * then zeros up to H - 4, then CRC32C of bytes [0, H - 4)
   */
  private static ByteBuffer encodeHeader(MembershipFilter f, SnapshotSupport support,
      Fingerprinter fp) {
    byte[] spec = fp.normalizer().spec().getBytes(StandardCharsets.UTF_8);
    if (spec.length > MAX_NORMALIZER_SPEC_BYTES) {
      throw new IllegalArgumentException("normalizer spec longer than "
          + MAX_NORMALIZER_SPEC_BYTES + " bytes cannot be stored in a snapshot");
    }
    ByteBuffer params = ByteBuffer.allocate(SnapshotSupport.MAX_PARAMETER_BYTES)
        .order(ByteOrder.LITTLE_ENDIAN);
    support.writeParameters(params);
    params.flip();
    int headerBytes = roundUp(FIXED_HEADER_BYTES + spec.length + params.remaining() + 4,
        ALIGNMENT);
    ByteBuffer b = ByteBuffer.allocate(headerBytes).order(ByteOrder.LITTLE_ENDIAN);
    b.put(MAGIC)
        .putShort((short) FORMAT_VERSION)
        .putShort((short) headerBytes)
        .putShort((short) f.type().id())
        .putShort((short) fp.algorithm().id())
        .putLong(fp.seed())
        .putLong(f.approximateCount())
        .putInt(spec.length)
        .putInt(params.remaining())
        .position(FIXED_HEADER_BYTES);
    b.put(spec).put(params);
    CRC32C crc = new CRC32C();
    crc.update(b.array(), 0, headerBytes - 4);
    b.putInt(headerBytes - 4, (int) crc.getValue());
    return b.clear();
  }

  private static Header readHeader(Path file, FileChannel in, long size) throws IOException {
    if (size < FIXED_HEADER_BYTES + 4) {
      throw new SnapshotException(file, "truncated: " + size
          + " bytes is shorter than a snapshot header; not an idem filter snapshot?");
    }
    ByteBuffer fixed = ByteBuffer.allocate(FIXED_HEADER_BYTES).order(ByteOrder.LITTLE_ENDIAN);
    readFully(in, fixed, 0);
    if (!Arrays.equals(Arrays.copyOf(fixed.array(), MAGIC.length), MAGIC)) {
      throw new SnapshotException(file, "not an idem filter snapshot (bad magic bytes)");
    }
    int headerBytes = Short.toUnsignedInt(fixed.getShort(10));
    if (headerBytes < FIXED_HEADER_BYTES + 4 || headerBytes % ALIGNMENT != 0
        || headerBytes > size - 4) {
      throw new SnapshotException(file, "corrupt header: header length " + headerBytes
          + " is impossible for a file of " + size + " bytes");
    }
    ByteBuffer b = ByteBuffer.allocate(headerBytes).order(ByteOrder.LITTLE_ENDIAN);
    readFully(in, b, 0);
    CRC32C crc = new CRC32C();
    crc.update(b.array(), 0, headerBytes - 4);
    if (b.getInt(headerBytes - 4) != (int) crc.getValue()) {
      throw new SnapshotException(file, "header checksum mismatch: the header is corrupt");
    }
    int version = Short.toUnsignedInt(b.getShort(8));
    if (version > FORMAT_VERSION) {
      throw new SnapshotException(file, "format version " + version
          + " was written by a newer idem; this build reads up to version " + FORMAT_VERSION);
    }
    if (version < 1) {
      throw new SnapshotException(file, "corrupt header: format version " + version);
    }
    int typeId = Short.toUnsignedInt(b.getShort(12));
    FilterType type = FilterType.byId(typeId);
    if (type == null) {
      throw new SnapshotException(file, "unknown filter type id " + typeId
          + "; this build reads " + FilterType.describeIds());
    }
    int algorithmId = Short.toUnsignedInt(b.getShort(14));
    HashAlgorithm algorithm = HashAlgorithm.byId(algorithmId);
    if (algorithm == null) {
      throw new SnapshotException(file, "unknown hash algorithm id " + algorithmId);
    }
    long seed = b.getLong(16);
    long count = b.getLong(24);
    int specBytes = b.getInt(32);
    int paramBytes = b.getInt(36);
    long used = (long) FIXED_HEADER_BYTES + specBytes + paramBytes;
    if (count < 0 || specBytes < 0 || paramBytes < 0 || used > headerBytes - 4) {
      throw new SnapshotException(file, String.format(Locale.ROOT,
          "inconsistent header: count=%d, normalizer %d bytes, parameters %d bytes, header %d",
          count, specBytes, paramBytes, headerBytes));
    }
    for (int i = 40; i < FIXED_HEADER_BYTES; i++) {
      if (b.get(i) != 0) {
        throw new SnapshotException(file, "corrupt header: non-zero reserved byte " + i);
      }
    }
    for (int i = (int) used; i < headerBytes - 4; i++) {
      if (b.get(i) != 0) {
        throw new SnapshotException(file, "corrupt header: non-zero padding at byte " + i);
      }
    }
    String spec = new String(b.array(), FIXED_HEADER_BYTES, specBytes, StandardCharsets.UTF_8);
    KeyNormalizer normalizer;
    try {
      normalizer = KeyNormalizer.parse(spec);
    } catch (IllegalArgumentException e) {
      throw new SnapshotException(file, "unreadable key normalizer: " + e.getMessage());
    }
    ByteBuffer parameters = ByteBuffer.wrap(b.array(), FIXED_HEADER_BYTES + specBytes,
        paramBytes).slice();
    return new Header(version, headerBytes, type, algorithm, seed, count, normalizer,
        parameters);
  }

  private static void readFully(FileChannel in, ByteBuffer dst, long position) throws IOException {
    while (dst.hasRemaining()) {
      int n = in.read(dst, position + dst.position());
      if (n < 0) {
        throw new EOFException("unexpected end of file");
      }
    }
  }

  private static void writeFully(FileChannel out, ByteBuffer src) throws IOException {
    while (src.hasRemaining()) {
      out.write(src);
    }
  }

  private static void syncDirectory(Path dir) {
    try (FileChannel d = FileChannel.open(dir, StandardOpenOption.READ)) {
      d.force(true);
    } catch (IOException e) {
      // Some file systems refuse to open or sync a directory; the rename itself is still atomic.
    }
  }

  private static int roundUp(int value, int multiple) {
    return (value + multiple - 1) / multiple * multiple;
  }
}
