package dev.idem.core.filter;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idem.core.Fingerprint;
import dev.idem.core.Fingerprinter;
import dev.idem.core.KeyNormalizer;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;
import java.util.SplittableRandom;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Filter snapshots refuse damage, in both carriers of the one format (a file and a byte array), and
 * files are written atomically. Every type's round trip is part of {@link
 * MembershipFilterContract}; compatibility with old files is {@link GoldenSnapshotTest}.
 */
class FilterSnapshotTest {

  @TempDir Path dir;

  private static final Fingerprinter FP =
      Fingerprinter.xxh3().withSeed(42).withNormalizer(KeyNormalizer.parse("trim,lowercase"));

  private static AbstractBloomFilter filled(FilterType type, int keys) {
    AbstractBloomFilter f = (AbstractBloomFilter) Filters.create(type, keys, 0.01);
    for (int i = 0; i < keys; i++) {
      f.put(FP.fingerprint("key-" + i));
    }
    return f;
  }

  /**
   * A filter of any type with content (scalable with several layers, cuckoo with its stash), for
   * the damage tests.
   */
  static MembershipFilter filledAnyType(FilterType type) {
    SplittableRandom random = new SplittableRandom(type.id());
    MembershipFilter f =
        switch (type) {
          case SCALABLE ->
              ScalableBloomFilter.builder().initialCapacity(500).falsePositiveRate(0.01).build();
          case CUCKOO -> CuckooFilter.withFingerprintBits(3200, 9);
          default -> Filters.create(type, 3000, 0.01);
        };
    for (int i = 0; i < 3000; i++) {
      f.put(random.nextLong(), random.nextLong());
    }
    if (f instanceof CuckooFilter c) {
      try {
        while (true) {
          c.add(random.nextLong(), random.nextLong());
        }
      } catch (FilterFullException e) {
        assertThat(c.layout().get("stash")).isEqualTo(CuckooFilter.STASH_CAPACITY);
      }
    }
    if (f instanceof DeletableFilter d) {
      d.remove(random.nextLong(), random.nextLong());
    }
    return f;
  }

  @Test
  void aFilterWithoutASnapshotFormIsRefusedByBothCarriers() {
    MembershipFilter foreign =
        (MembershipFilter)
            java.lang.reflect.Proxy.newProxyInstance(
                getClass().getClassLoader(),
                new Class<?>[] {MembershipFilter.class},
                (p, m, a) -> {
                  throw new AssertionError("not to be called");
                });
    assertThatThrownBy(() -> FilterSnapshot.toBytes(foreign, FP))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("cannot be saved");
    assertThatThrownBy(() -> FilterSnapshot.write(dir.resolve("f.idx"), foreign, FP))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("cannot be saved");
  }

  @Test
  void parametersThatDisagreeAreRefusedEvenWithGoodChecksums() throws IOException {
    // the blocked parameter block: capacity u64, fpp f64, bits u64, k u32, reserved u32
    byte[] good = FilterSnapshot.toBytes(filled(FilterType.BLOCKED, 100), FP);
    int params = 64 + FP.normalizer().spec().length();
    byte[] partBlock = good.clone();
    ByteBuffer b = ByteBuffer.wrap(partBlock).order(ByteOrder.LITTLE_ENDIAN);
    b.putLong(params + 16, b.getLong(params + 16) - 64); // no longer whole 512-bit blocks
    assertRefused(resealed(partBlock), "bits not whole blocks")
        .hasMessageContaining("inconsistent parameters")
        .hasMessageContaining("multiple of 512");
    byte[] noHashes = good.clone();
    ByteBuffer.wrap(noHashes).order(ByteOrder.LITTLE_ENDIAN).putInt(params + 24, 0);
    assertRefused(resealed(noHashes), "k = 0")
        .hasMessageContaining("inconsistent parameters")
        .hasMessageContaining("k=0");
  }

  /** The bytes with the header CRC32C recomputed, so only the change under test is wrong. */
  static byte[] resealed(byte[] bytes) {
    ByteBuffer b = ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN);
    int headerBytes = Short.toUnsignedInt(b.getShort(10));
    CRC32C crc = new CRC32C();
    crc.update(bytes, 0, headerBytes - 4);
    b.putInt(headerBytes - 4, (int) crc.getValue());
    return bytes;
  }

  @ParameterizedTest
  @EnumSource(FilterType.class)
  void everyTypeRefusesEveryFlippedHeaderByte(FilterType type) throws IOException {
    Path file = dir.resolve("f.idx");
    FilterSnapshot.write(file, filledAnyType(type), FP);
    byte[] good = Files.readAllBytes(file);
    int headerBytes =
        Short.toUnsignedInt(ByteBuffer.wrap(good).order(ByteOrder.LITTLE_ENDIAN).getShort(10));
    for (int i = 0; i < headerBytes; i++) {
      byte[] bad = good.clone();
      bad[i] ^= (byte) 0x10;
      assertRefused(bad, type + ": flipped bit 4 of header byte " + i);
    }
  }

  @Test
  void writingLeavesNoTemporaryFilesAndReplacesAnOldSnapshot() throws IOException {
    Path file = dir.resolve("f.idx");
    FilterSnapshot.write(file, filled(FilterType.BLOCKED, 100), FP);
    FilterSnapshot.write(file, filled(FilterType.BLOOM, 300), FP);
    try (var files = Files.list(dir)) {
      assertThat(files).containsExactly(file);
    }
    assertThat(FilterSnapshot.read(file).filter().type()).isEqualTo(FilterType.BLOOM);
    // the mode the umask gives any new file, not a temporary file's 0600
    Path plain = Files.createFile(dir.resolve("plain"));
    assertThat(Files.getPosixFilePermissions(file)).isEqualTo(Files.getPosixFilePermissions(plain));
  }

  @Test
  void putsIntoAMappedFilterNeverReachTheFile() throws IOException {
    Path file = dir.resolve("f.idx");
    FilterSnapshot.write(file, filled(FilterType.BLOCKED, 1000), FP);
    byte[] before = Files.readAllBytes(file);
    MembershipFilter mapped = FilterSnapshot.map(file).filter();
    Fingerprint fresh = FP.fingerprint("a key not in the snapshot");
    assertThat(mapped.put(fresh)).isTrue();
    assertThat(mapped.mightContain(fresh)).isTrue();
    assertThat(Files.readAllBytes(file)).isEqualTo(before);
  }

  @Test
  void mappedChunksSplitAtAnyWordBoundary() throws IOException {
    AbstractBloomFilter original = filled(FilterType.BLOOM, 3000); // ≈ 3.6 KiB of bits
    Path file = dir.resolve("f.idx");
    FilterSnapshot.write(file, original, FP);
    long payload = original.bits.wordCount() * 8;
    int headerBytes =
        Short.toUnsignedInt(
            ByteBuffer.wrap(Files.readAllBytes(file)).order(ByteOrder.LITTLE_ENDIAN).getShort(10));
    try (FileChannel ch =
        FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
      // 256-byte chunks: a dozen of them, the last one partial
      MappedBitArray bits =
          MappedBitArray.map(ch, headerBytes, original.bits.wordCount(), new CRC32C(), 8);
      for (long w = 0; w < original.bits.wordCount(); w++) {
        assertThat(bits.word(w)).isEqualTo(original.bits.word(w));
      }
      long lastBit = payload * 8 - 1;
      bits.set(lastBit);
      assertThat(bits.get(lastBit)).isTrue();
    }
  }

  @Test
  void everyFlippedHeaderByteIsRefused() throws IOException {
    Path file = dir.resolve("f.idx");
    FilterSnapshot.write(file, filled(FilterType.PARTITIONED, 200), FP);
    byte[] good = Files.readAllBytes(file);
    int headerBytes =
        Short.toUnsignedInt(ByteBuffer.wrap(good).order(ByteOrder.LITTLE_ENDIAN).getShort(10));
    for (int i = 0; i < headerBytes; i++) {
      for (int bit : new int[] {0, 7}) {
        byte[] bad = good.clone();
        bad[i] ^= (byte) (1 << bit);
        assertRefused(bad, "flipped bit " + bit + " of header byte " + i);
      }
    }
  }

  @Test
  void flippedPayloadBytesAreRefusedInBothModes() throws IOException {
    Path file = dir.resolve("f.idx");
    FilterSnapshot.write(file, filled(FilterType.BLOOM, 2000), FP);
    byte[] good = Files.readAllBytes(file);
    SplittableRandom random = new SplittableRandom(11);
    for (int trial = 0; trial < 200; trial++) {
      byte[] bad = good.clone();
      int at = 64 + random.nextInt(bad.length - 64); // payload or trailer
      bad[at] ^= (byte) (1 + random.nextInt(255));
      assertRefused(bad, "byte " + at + " changed").hasMessageContaining("checksum");
    }
  }

  @Test
  void truncatedOrExtendedFilesAreRefused() throws IOException {
    Path file = dir.resolve("f.idx");
    FilterSnapshot.write(file, filled(FilterType.BLOCKED, 500), FP);
    byte[] good = Files.readAllBytes(file);
    for (int length = 0; length < good.length; length += (length < 200 ? 1 : 61)) {
      assertRefused(Arrays.copyOf(good, length), "truncated to " + length);
    }
    assertRefused(Arrays.copyOf(good, good.length - 1), "last byte cut");
    assertRefused(Arrays.copyOf(good, good.length + 8), "extended")
        .hasMessageContaining("unexpected bytes after the payload");
  }

  @Test
  void aFutureFormatVersionIsRefusedAsSuch() throws IOException {
    byte[] bytes = snapshotWith(8, (short) (FilterSnapshot.FORMAT_VERSION + 1));
    assertRefused(bytes, "future version")
        .hasMessageContaining("format version 2 was written by a newer idem");
  }

  @Test
  void anUnknownFilterTypeIsRefusedAsSuch() throws IOException {
    byte[] bytes = snapshotWith(12, (short) 77);
    assertRefused(bytes, "unknown type").hasMessageContaining("unknown filter type id 77");
  }

  @Test
  void aFileThatIsNotASnapshotIsRefusedAsSuch() throws IOException {
    byte[] text = "this is a list of keys\n".repeat(20).getBytes();
    assertRefused(text, "text file").hasMessageContaining("not an idem filter snapshot");
    assertThatThrownBy(() -> FilterSnapshot.read(dir.resolve("missing.idx")))
        .isInstanceOf(NoSuchFileException.class);
  }

  /** A valid snapshot whose header field at {@code offset} is replaced, with a fixed-up CRC. */
  private byte[] snapshotWith(int offset, short value) throws IOException {
    Path file = dir.resolve("base.idx");
    FilterSnapshot.write(file, filled(FilterType.BLOOM, 100), FP);
    byte[] bytes = Files.readAllBytes(file);
    ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN).putShort(offset, value);
    return resealed(bytes);
  }

  /**
   * Asserts that every carrier refuses {@code content} with the same fault, naming the file or the
   * array; returns the file reader's refusal for more checks.
   */
  private org.assertj.core.api.AbstractThrowableAssert<?, ? extends Throwable> assertRefused(
      byte[] content, String what) throws IOException {
    Path bad = dir.resolve("bad.idx");
    Files.write(bad, content);
    String fault = null;
    for (FilterSnapshot.LoadMode mode : FilterSnapshot.LoadMode.values()) {
      SnapshotException e = catchSnapshotException(() -> FilterSnapshot.open(bad, mode), what);
      assertThat(e.getMessage()).as("%s (%s)", what, mode).startsWith(bad + ": ");
      assertThat(e.file()).isEqualTo(bad);
      fault = e.getMessage().substring(bad.toString().length());
    }
    SnapshotException e = catchSnapshotException(() -> FilterSnapshot.fromBytes(content), what);
    assertThat(e.getMessage()).as("%s (bytes)", what).isEqualTo(SnapshotException.BYTES + fault);
    assertThat(e.file()).isNull();
    return assertThatThrownBy(() -> FilterSnapshot.read(bad));
  }

  private static SnapshotException catchSnapshotException(
      org.assertj.core.api.ThrowableAssert.ThrowingCallable read, String what) {
    Throwable t = org.assertj.core.api.Assertions.catchThrowable(read);
    assertThat(t).as(what).isInstanceOf(SnapshotException.class);
    return (SnapshotException) t;
  }
}
