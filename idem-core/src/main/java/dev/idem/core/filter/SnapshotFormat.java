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
import java.nio.channels.SeekableByteChannel;
import java.nio.channels.WritableByteChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.zip.CRC32C;

/**
 * The snapshot format of {@code docs/FORMAT.md}, apart from where its bytes live. {@link
 * FilterSnapshot} carries it in a file or in a byte array; both carriers go through this one
 * encoder and this one decoder, so they cannot drift apart.
 *
 * <p>Why it is long: the one encoder and decoder cover both carriers and both checksum layouts
 * (whole payload, and per 4 KiB page for snapshots used in place); the header's fields are read and
 * written here only, so that the format has one home.
 */
final class SnapshotFormat {

  static final byte[] MAGIC = "IDEMFLTR".getBytes(StandardCharsets.US_ASCII);
  static final int FIXED_HEADER_BYTES = 64;
  static final int ALIGNMENT = 64;
  static final int MAX_NORMALIZER_SPEC_BYTES = 4096;

  /** The payload's CRC32C after the last array. */
  static final int TRAILER_BYTES = 4;

  /** log2 of the page size of page checksums: 4 KiB, the operating system's page. */
  static final int PAGE_SHIFT = 12;

  /** With page checksums: the page table's CRC32C follows the payload's. */
  static final int PAGED_TRAILER_BYTES = 8;

  private SnapshotFormat() {}

  /** A filter ready to be written: its encoded header and the arrays of its payload. */
  static final class Encoded {
    private final ByteBuffer header;
    private final List<BitArray> payload;
    private final boolean paged;

    private Encoded(ByteBuffer header, List<BitArray> payload, boolean paged) {
      this.header = header;
      this.payload = payload;
      this.paged = paged;
    }

    private static long words(List<BitArray> payload) {
      long words = 0;
      for (BitArray array : payload) {
        words += array.wordCount();
      }
      return words;
    }

    /** Bytes of the whole snapshot: header, payload, page table and trailer. */
    long size() {
      long bytes = words(payload) * Long.BYTES;
      return header.remaining()
          + bytes
          + (paged ? 4 * pages(bytes) + PAGED_TRAILER_BYTES : TRAILER_BYTES);
    }

    /** Writes the whole snapshot to {@code out}, once. */
    void writeTo(WritableByteChannel out) throws IOException {
      writeFully(out, header);
      CRC32C payloadCrc = new CRC32C();
      PageCrcs pages = paged ? new PageCrcs(out, pages(words(payload) * Long.BYTES)) : null;
      WritableByteChannel sink = paged ? pages : out;
      for (BitArray array : payload) {
        array.writeTo(sink, payloadCrc);
      }
      if (paged) {
        ByteBuffer table = pages.finish();
        CRC32C tableCrc = new CRC32C();
        tableCrc.update(table.duplicate());
        writeFully(out, table);
        ByteBuffer trailer =
            ByteBuffer.allocate(PAGED_TRAILER_BYTES).order(ByteOrder.LITTLE_ENDIAN);
        trailer.putInt((int) payloadCrc.getValue()).putInt((int) tableCrc.getValue()).flip();
        writeFully(out, trailer);
      } else {
        ByteBuffer trailer = ByteBuffer.allocate(TRAILER_BYTES).order(ByteOrder.LITTLE_ENDIAN);
        trailer.putInt((int) payloadCrc.getValue()).flip();
        writeFully(out, trailer);
      }
    }
  }

  /** Pages of a payload of {@code bytes} bytes. */
  static long pages(long bytes) {
    return (bytes + (1L << PAGE_SHIFT) - 1) >>> PAGE_SHIFT;
  }

  /** Passes the payload on to a channel, taking the CRC32C of each page as it goes. */
  private static final class PageCrcs implements WritableByteChannel {
    private final WritableByteChannel out;
    private final ByteBuffer table;
    private final CRC32C crc = new CRC32C();
    private int inPage;

    PageCrcs(WritableByteChannel out, long pages) {
      if (pages > Integer.MAX_VALUE / 4) {
        throw new IllegalArgumentException("a payload of " + pages + " pages is too large");
      }
      this.out = out;
      this.table = ByteBuffer.allocate((int) (4 * pages)).order(ByteOrder.LITTLE_ENDIAN);
    }

    @Override
    public int write(ByteBuffer src) throws IOException {
      int start = src.position();
      int n = out.write(src);
      ByteBuffer written = src.duplicate().position(start).limit(start + n);
      while (written.hasRemaining()) {
        int take = Math.min(written.remaining(), (1 << PAGE_SHIFT) - inPage);
        ByteBuffer part = written.duplicate().limit(written.position() + take);
        crc.update(part);
        written.position(written.position() + take);
        inPage += take;
        if (inPage == 1 << PAGE_SHIFT) {
          table.putInt((int) crc.getValue());
          crc.reset();
          inPage = 0;
        }
      }
      return n;
    }

    ByteBuffer finish() {
      if (inPage > 0) {
        table.putInt((int) crc.getValue());
      }
      if (table.hasRemaining()) {
        throw new IllegalStateException("the payload was shorter than its arrays said");
      }
      return table.flip();
    }

    @Override
    public boolean isOpen() {
      return out.isOpen();
    }

    @Override
    public void close() {}
  }

  /**
   * Encodes {@code filter}'s header and takes hold of its payload arrays, which are read when the
   * snapshot is written; stop concurrent writers of the filter until then.
   *
   * @throws IllegalArgumentException for a filter type that has no snapshot form
   */
  static Encoded encode(MembershipFilter filter, Fingerprinter fingerprinter) {
    return encode(filter, fingerprinter, false);
  }

  /**
   * As {@link #encode(MembershipFilter, Fingerprinter)}; {@code paged}: with page checksums, so
   * that a map can verify the payload page by page as it is used.
   */
  static Encoded encode(MembershipFilter filter, Fingerprinter fingerprinter, boolean paged) {
    if (!(filter instanceof SnapshotSupport support)) {
      throw new IllegalArgumentException(
          filter.getClass().getName() + " cannot be saved as an idem snapshot");
    }
    // one call to payload(): a scalable filter that grows meanwhile keeps header and arrays agreed
    List<BitArray> payload = support.payload();
    long words = paged ? Encoded.words(payload) : 0;
    return new Encoded(encodeHeader(filter, support, fingerprinter, words), payload, paged);
  }

  /** What a snapshot holds, decoded and checked. */
  record Decoded(
      int version, MembershipFilter filter, Fingerprinter fingerprinter, MappedPayload mapped) {}

  /**
   * Decodes the snapshot that fills {@code in}, verifying both checksums.
   *
   * @param file the file {@code in} reads, named in every error; {@code null} for a byte array
   * @param mapFrom the channel to map the payload from, or {@code null} to read it into the heap
   * @throws SnapshotException when the bytes are not a valid snapshot this build can read
   */
  static Decoded decode(Path file, SeekableByteChannel in, FileChannel mapFrom) throws IOException {
    long size = in.size();
    Header h = readHeader(file, in, size);
    long end = h.paged() ? h.headerBytes + h.payloadWords * Long.BYTES : size - TRAILER_BYTES;
    int[] pageCrcs = null;
    int tableCrc = 0;
    if (h.paged()) {
      long pages = pages(h.payloadWords * Long.BYTES);
      ByteBuffer table = ByteBuffer.allocate((int) (4 * pages)).order(ByteOrder.LITTLE_ENDIAN);
      readFully(in, table, end);
      CRC32C crc = new CRC32C();
      crc.update(table.flip().duplicate());
      ByteBuffer trailer = ByteBuffer.allocate(PAGED_TRAILER_BYTES).order(ByteOrder.LITTLE_ENDIAN);
      readFully(in, trailer, end + 4 * pages);
      tableCrc = trailer.getInt(4);
      if (tableCrc != (int) crc.getValue()) {
        throw new SnapshotException(file, "page table checksum mismatch: the snapshot is corrupt");
      }
      pageCrcs = new int[(int) pages];
      table.asIntBuffer().get(pageCrcs);
    }
    MappedPayload mapped = null;
    if (mapFrom != null && h.paged()) {
      mapped =
          MappedPayload.map(
              file, mapFrom, h.headerBytes, h.payloadWords, MappedBitArray.CHUNK_SHIFT, pageCrcs);
    } else if (mapFrom != null && end > h.headerBytes) {
      long words = (end - h.headerBytes) / Long.BYTES;
      mapped =
          MappedPayload.map(file, mapFrom, h.headerBytes, words, MappedBitArray.CHUNK_SHIFT, null);
    }
    PayloadReader payload = new PayloadReader(file, in, mapped, h.headerBytes, end);
    MembershipFilter filter;
    try {
      ByteBuffer parameters = h.parameters.duplicate().order(ByteOrder.LITTLE_ENDIAN);
      filter = Filters.restore(h.type, parameters, h.count, payload);
      if (parameters.hasRemaining()) {
        throw new IllegalArgumentException(
            parameters.remaining() + " unread bytes in the parameter block");
      }
    } catch (IllegalArgumentException e) {
      throw new SnapshotException(file, "inconsistent parameters: " + e.getMessage());
    } catch (BufferUnderflowException e) {
      throw new SnapshotException(
          file,
          "inconsistent parameters: the " + h.type.displayName() + " parameter block is too short");
    }
    if (payload.position < payload.end) {
      throw new SnapshotException(
          file,
          String.format(
              Locale.ROOT,
              "%,d unexpected bytes after the payload",
              payload.end - payload.position));
    }
    if (mapped == null || !mapped.guarded()) {
      if (mapped != null) {
        // mapped without page checksums: the whole payload is read once and verified here
        MappedPayload.checksum(mapFrom, h.headerBytes, payload.end - h.headerBytes, payload.crc);
      }
      ByteBuffer trailer = ByteBuffer.allocate(TRAILER_BYTES).order(ByteOrder.LITTLE_ENDIAN);
      long at = h.paged() ? payload.end + 4L * pageCrcs.length : payload.end;
      readFully(in, trailer, at);
      if (trailer.getInt(0) != (int) payload.crc.getValue()) {
        throw new SnapshotException(file, "payload checksum mismatch: the filter data is corrupt");
      }
    }
    return new Decoded(
        h.version, filter, Fingerprinter.of(h.algorithm, h.seed, h.normalizer), mapped);
  }

  /** Reads or maps payload arrays in order, checking that each lies inside the snapshot. */
  private static final class PayloadReader implements SnapshotSupport.Payload {
    private final Path file;
    private final SeekableByteChannel in;
    private final MappedPayload mapped;
    private final long start;
    private final long end;
    private final CRC32C crc = new CRC32C();
    private long position;

    PayloadReader(Path file, SeekableByteChannel in, MappedPayload mapped, long start, long end) {
      this.file = file;
      this.in = in;
      this.mapped = mapped;
      this.start = start;
      this.position = start;
      this.end = end;
    }

    @Override
    public boolean inPlace() {
      return mapped != null && mapped.guarded();
    }

    @Override
    public BitArray next(long words) throws IOException {
      long bytes = words * Long.BYTES;
      if (words < 0 || bytes > end - position) {
        throw new SnapshotException(
            file,
            String.format(
                Locale.ROOT,
                "truncated: the payload needs %,d more bytes at offset %,d, the snapshot has %,d",
                bytes,
                position,
                Math.max(0, end - position)));
      }
      BitArray array;
      if (mapped != null) {
        array = new MappedBitArray(mapped, (position - start) / Long.BYTES, words);
      } else {
        in.position(position);
        array = HeapBitArray.read(in, words, crc);
      }
      position += bytes;
      return array;
    }
  }

  /** The decoded, checked header. */
  private record Header(
      int version,
      int headerBytes,
      FilterType type,
      HashAlgorithm algorithm,
      long seed,
      long count,
      KeyNormalizer normalizer,
      ByteBuffer parameters,
      long payloadWords) {

    /** Whether the snapshot carries page checksums. */
    boolean paged() {
      return payloadWords >= 0;
    }
  }

  /*
   * Header layout, little-endian (docs/FORMAT.md):
   *  0 8 magic "IDEMFLTR"     14 2 hash algorithm id     36 4 parameter block bytes P
   *  8 2 format version       16 8 hash seed             40 24 reserved, zero
   * 10 2 header bytes H       24 8 count                 64 L normalizer spec, UTF-8
   * 12 2 filter type id       32 4 normalizer bytes L    64+L P parameter block
   * then zeros up to H - 4, then CRC32C of bytes [0, H - 4)
   */
  private static ByteBuffer encodeHeader(
      MembershipFilter f, SnapshotSupport support, Fingerprinter fp, long pagedWords) {
    byte[] spec = fp.normalizer().spec().getBytes(StandardCharsets.UTF_8);
    if (spec.length > MAX_NORMALIZER_SPEC_BYTES) {
      throw new IllegalArgumentException(
          "normalizer spec longer than "
              + MAX_NORMALIZER_SPEC_BYTES
              + " bytes cannot be stored in a snapshot");
    }
    ByteBuffer params =
        ByteBuffer.allocate(SnapshotSupport.MAX_PARAMETER_BYTES).order(ByteOrder.LITTLE_ENDIAN);
    support.writeParameters(params);
    params.flip();
    int headerBytes = roundUp(FIXED_HEADER_BYTES + spec.length + params.remaining() + 4, ALIGNMENT);
    ByteBuffer b = ByteBuffer.allocate(headerBytes).order(ByteOrder.LITTLE_ENDIAN);
    b.put(MAGIC)
        .putShort((short) FilterSnapshot.FORMAT_VERSION)
        .putShort((short) headerBytes)
        .putShort((short) f.type().id())
        .putShort((short) fp.algorithm().id())
        .putLong(fp.seed())
        .putLong(f.approximateCount())
        .putInt(spec.length)
        .putInt(params.remaining());
    if (pagedWords > 0) {
      b.putInt(1 << PAGE_SHIFT).putInt(0).putLong(pagedWords);
    }
    b.position(FIXED_HEADER_BYTES);
    b.put(spec).put(params);
    CRC32C crc = new CRC32C();
    crc.update(b.array(), 0, headerBytes - 4);
    b.putInt(headerBytes - 4, (int) crc.getValue());
    return b.clear();
  }

  private static Header readHeader(Path file, SeekableByteChannel in, long size)
      throws IOException {
    if (size < FIXED_HEADER_BYTES + 4) {
      throw new SnapshotException(
          file,
          "truncated: "
              + size
              + " bytes is shorter than a snapshot header; not an idem filter snapshot?");
    }
    ByteBuffer fixed = ByteBuffer.allocate(FIXED_HEADER_BYTES).order(ByteOrder.LITTLE_ENDIAN);
    readFully(in, fixed, 0);
    if (!Arrays.equals(Arrays.copyOf(fixed.array(), MAGIC.length), MAGIC)) {
      throw new SnapshotException(file, "not an idem filter snapshot (bad magic bytes)");
    }
    int headerBytes = Short.toUnsignedInt(fixed.getShort(10));
    if (headerBytes < FIXED_HEADER_BYTES + 4
        || headerBytes % ALIGNMENT != 0
        || headerBytes > size - TRAILER_BYTES) {
      throw new SnapshotException(
          file,
          "corrupt header: header length "
              + headerBytes
              + " is impossible for a snapshot of "
              + size
              + " bytes");
    }
    ByteBuffer b = ByteBuffer.allocate(headerBytes).order(ByteOrder.LITTLE_ENDIAN);
    readFully(in, b, 0);
    CRC32C crc = new CRC32C();
    crc.update(b.array(), 0, headerBytes - 4);
    if (b.getInt(headerBytes - 4) != (int) crc.getValue()) {
      throw new SnapshotException(file, "header checksum mismatch: the header is corrupt");
    }
    int version = Short.toUnsignedInt(b.getShort(8));
    if (version > FilterSnapshot.FORMAT_VERSION) {
      throw new SnapshotException(
          file,
          "format version "
              + version
              + " was written by a newer "
              + "idem; this build reads up to version "
              + FilterSnapshot.FORMAT_VERSION);
    }
    if (version < 1) {
      throw new SnapshotException(file, "corrupt header: format version " + version);
    }
    int typeId = Short.toUnsignedInt(b.getShort(12));
    FilterType type = FilterType.byId(typeId);
    if (type == null) {
      throw new SnapshotException(
          file,
          "unknown filter type id " + typeId + "; this build reads " + FilterType.describeIds());
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
      throw new SnapshotException(
          file,
          String.format(
              Locale.ROOT,
              "inconsistent header: count=%d, normalizer %d bytes, parameters %d bytes, header %d",
              count,
              specBytes,
              paramBytes,
              headerBytes));
    }
    int pageBytes = b.getInt(40);
    long payloadWords = -1;
    int reservedFrom = 40;
    if (pageBytes != 0) {
      payloadWords = b.getLong(48);
      long pages = pages(payloadWords * Long.BYTES);
      if (pageBytes != 1 << PAGE_SHIFT
          || payloadWords < 1
          || payloadWords > (size / Long.BYTES)
          || headerBytes + payloadWords * Long.BYTES + 4 * pages + PAGED_TRAILER_BYTES != size) {
        throw new SnapshotException(
            file,
            String.format(
                Locale.ROOT,
                "corrupt header: page checksums of %d bytes over %,d payload words do not fit a "
                    + "snapshot of %,d bytes",
                pageBytes,
                payloadWords,
                size));
      }
      reservedFrom = 56;
      if (b.getInt(44) != 0) {
        throw new SnapshotException(file, "corrupt header: non-zero reserved byte 44");
      }
    }
    for (int i = reservedFrom; i < FIXED_HEADER_BYTES; i++) {
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
    ByteBuffer parameters =
        ByteBuffer.wrap(b.array(), FIXED_HEADER_BYTES + specBytes, paramBytes).slice();
    return new Header(
        version, headerBytes, type, algorithm, seed, count, normalizer, parameters, payloadWords);
  }

  private static void readFully(SeekableByteChannel in, ByteBuffer dst, long position)
      throws IOException {
    in.position(position + dst.position());
    while (dst.hasRemaining()) {
      if (in.read(dst) < 0) {
        throw new EOFException("unexpected end of snapshot");
      }
    }
  }

  static void writeFully(WritableByteChannel out, ByteBuffer src) throws IOException {
    while (src.hasRemaining()) {
      out.write(src);
    }
  }

  private static int roundUp(int value, int multiple) {
    return (value + multiple - 1) / multiple * multiple;
  }
}
