package dev.idem.core.filter;

import dev.idem.core.Fingerprinter;
import dev.idem.core.HashAlgorithm;
import dev.idem.core.KeyNormalizer;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
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
 * layout, hash algorithm, seed and key normaliser. The byte layout is specified in {@code
 * docs/FORMAT.md}; in short: a header padded to a multiple of 64 bytes and closed by its CRC32C,
 * the bit array as little-endian 64-bit words, and the payload's CRC32C.
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

  /** How to bring a snapshot's bits into memory. */
  public enum LoadMode {
    /** Copy the bits into a heap array: costs heap and a full read, then the fastest queries. */
    HEAP,
    /**
     * Map the file privately (copy-on-write): no heap, pages load on first touch, changes stay in
     * this process. Best for large filters and fast restarts. The checksum is still verified, so
     * opening reads the whole file once. A file this process may not write is mapped read-only,
     * and a put into it throws {@link java.nio.ReadOnlyBufferException}.
     */
    MAP
  }

  private final Path file;
  private final int formatVersion;
  private final AbstractBloomFilter filter;
  private final Fingerprinter fingerprinter;
  private final LoadMode loadMode;

  private FilterSnapshot(Path file, int formatVersion, AbstractBloomFilter filter,
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

  /** The filter, ready to query (and to put into; a mapped filter never writes to the file). */
  public AbstractBloomFilter filter() {
    return filter;
  }

  /** How keys become fingerprints for this filter. */
  public Fingerprinter fingerprinter() {
    return fingerprinter;
  }

  /** How the bits were loaded. */
  public LoadMode loadMode() {
    return loadMode;
  }

  /**
   * Writes {@code filter} and the fingerprinter that feeds it to {@code file}, atomically. Stop
   * concurrent writers first: a put that races with the write may or may not be saved.
   */
  public static void write(Path file, AbstractBloomFilter filter, Fingerprinter fingerprinter)
      throws IOException {
    Path target = file.toAbsolutePath();
    Path dir = target.getParent();
    ByteBuffer header = encodeHeader(filter, fingerprinter);
    Path tmp = Files.createTempFile(dir, "." + target.getFileName() + ".", ".tmp");
    try {
      try (FileChannel out = FileChannel.open(tmp, StandardOpenOption.WRITE,
          StandardOpenOption.TRUNCATE_EXISTING)) {
        writeFully(out, header);
        CRC32C payloadCrc = new CRC32C();
        filter.bits.writeTo(out, payloadCrc);
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
      long payloadBytes = h.wordCount() * Long.BYTES;
      long expectedSize = h.headerBytes + payloadBytes + 4;
      if (size != expectedSize) {
        throw new SnapshotException(file, size < expectedSize
            ? String.format(Locale.ROOT,
                "truncated: %,d bytes, a %s filter of %,d bits needs %,d", size,
                h.type.displayName(), h.bitSize, expectedSize)
            : String.format(Locale.ROOT, "%,d unexpected bytes after the payload",
                size - expectedSize));
      }
      CRC32C crc = new CRC32C();
      BitArray bits;
      in.position(h.headerBytes);
      bits = mode == LoadMode.MAP
          ? MappedBitArray.map(in, h.headerBytes, h.wordCount(), crc)
          : HeapBitArray.read(in, h.wordCount(), crc);
      ByteBuffer trailer = ByteBuffer.allocate(4).order(ByteOrder.LITTLE_ENDIAN);
      readFully(in, trailer, h.headerBytes + payloadBytes);
      if (trailer.getInt(0) != (int) crc.getValue()) {
        throw new SnapshotException(file, "payload checksum mismatch: the filter bits are corrupt");
      }
      AbstractBloomFilter filter;
      try {
        filter = h.type.restore(h.capacity, h.targetFpp, h.bitSize, h.hashCount, bits, h.count);
      } catch (IllegalArgumentException e) {
        throw new SnapshotException(file, "inconsistent parameters: " + e.getMessage());
      }
      return new FilterSnapshot(file, h.version, filter,
          Fingerprinter.of(h.algorithm, h.seed, h.normalizer), mode);
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
      } catch (java.nio.file.AccessDeniedException e) {
        // fall through to read-only
      }
    }
    return FileChannel.open(file, StandardOpenOption.READ);
  }

  /** The decoded, validated header. */
  private record Header(int version, int headerBytes, FilterType type, HashAlgorithm algorithm,
      int hashCount, long seed, long bitSize, long capacity, double targetFpp, long count,
      KeyNormalizer normalizer) {
    long wordCount() {
      return (bitSize + 63) >>> 6;
    }
  }

  /*
   * Header layout, little-endian (docs/FORMAT.md):
   *  0  8  magic "IDEMFLTR"        16 4 hash count k          40 8 capacity n
   *  8  2  format version          20 4 normalizer spec bytes 48 8 target fpp (IEEE 754)
   * 10  2  header bytes H          24 8 hash seed             56 8 count of changing puts
   * 12  2  filter type id          32 8 bit size m            64 L normalizer spec, UTF-8
   * 14  2  hash algorithm id       then zeros up to H - 4, then CRC32C of bytes [0, H - 4)
   */
  private static ByteBuffer encodeHeader(AbstractBloomFilter f, Fingerprinter fp) {
    byte[] spec = fp.normalizer().spec().getBytes(StandardCharsets.UTF_8);
    if (spec.length > MAX_NORMALIZER_SPEC_BYTES) {
      throw new IllegalArgumentException("normalizer spec longer than "
          + MAX_NORMALIZER_SPEC_BYTES + " bytes cannot be stored in a snapshot");
    }
    int headerBytes = roundUp(FIXED_HEADER_BYTES + spec.length + 4, ALIGNMENT);
    ByteBuffer b = ByteBuffer.allocate(headerBytes).order(ByteOrder.LITTLE_ENDIAN);
    b.put(MAGIC)
        .putShort((short) FORMAT_VERSION)
        .putShort((short) headerBytes)
        .putShort((short) f.type().id())
        .putShort((short) fp.algorithm().id())
        .putInt(f.hashCount())
        .putInt(spec.length)
        .putLong(fp.seed())
        .putLong(f.bitSize())
        .putLong(f.capacity())
        .putDouble(f.targetFpp())
        .putLong(f.approximateCount())
        .put(spec);
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
        || headerBytes > size) {
      throw new SnapshotException(file, "corrupt header: header length " + headerBytes
          + " is impossible");
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
          + "; this build reads bloom (1), blocked (2) and partitioned (3)");
    }
    int algorithmId = Short.toUnsignedInt(b.getShort(14));
    HashAlgorithm algorithm = HashAlgorithm.byId(algorithmId);
    if (algorithm == null) {
      throw new SnapshotException(file, "unknown hash algorithm id " + algorithmId);
    }
    int hashCount = b.getInt(16);
    int specBytes = b.getInt(20);
    long seed = b.getLong(24);
    long bitSize = b.getLong(32);
    long capacity = b.getLong(40);
    double targetFpp = b.getDouble(48);
    long count = b.getLong(56);
    if (hashCount < 1 || bitSize < 1 || bitSize > FilterMath.MAX_BITS || capacity < 1
        || !(targetFpp > 0 && targetFpp < 1) || count < 0 || specBytes < 0
        || specBytes > headerBytes - FIXED_HEADER_BYTES - 4) {
      throw new SnapshotException(file, String.format(Locale.ROOT,
          "inconsistent parameters: k=%d, bits=%d, capacity=%d, fpp=%s, count=%d, spec=%d bytes",
          hashCount, bitSize, capacity, targetFpp, count, specBytes));
    }
    for (int i = FIXED_HEADER_BYTES + specBytes; i < headerBytes - 4; i++) {
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
    return new Header(version, headerBytes, type, algorithm, hashCount, seed, bitSize, capacity,
        targetFpp, count, normalizer);
  }

  private static void readFully(FileChannel in, ByteBuffer dst, long position) throws IOException {
    while (dst.hasRemaining()) {
      int n = in.read(dst, position + dst.position());
      if (n < 0) {
        throw new java.io.EOFException("unexpected end of file");
      }
    }
  }

  private static void writeFully(FileChannel out, ByteBuffer src) throws IOException {
    while (src.hasRemaining()) {
      out.write(src);
    }
  }

  private static void syncDirectory(Path dir) throws IOException {
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
