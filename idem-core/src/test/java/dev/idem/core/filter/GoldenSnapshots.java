package dev.idem.core.filter;

import static java.nio.charset.StandardCharsets.UTF_8;

import dev.idem.core.Fingerprinter;
import dev.idem.core.KeyNormalizer;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.StringJoiner;
import java.util.zip.CRC32C;

/**
 * Writes the golden snapshots of {@code src/test/resources/golden/} (see the README there): one
 * small snapshot of every filter type, built from fixed keys, and damaged copies. They are written
 * once per format version and then only read, by {@link GoldenSnapshotTest}: a change of the format
 * (or of how a type places keys) must fail that test instead of passing a round trip of the new
 * code with itself.
 *
 * <p>Key {@code i} of a snapshot is the string {@code "key-" + i}, fingerprinted with the
 * snapshot's own fingerprinter; the non-keys are {@code "absent-" + i} for {@code i <} {@link
 * #NON_KEYS}. {@code expected.properties} records, per file, its SHA-256, its type, its key range
 * and which non-keys it answers "maybe".
 */
final class GoldenSnapshots {

  static final int NON_KEYS = 2000;
  static final String EXPECTED = "expected.properties";

  /** The damaged copies are of this file. */
  static final String DAMAGED_FROM = "blocked.idx";

  /** Scalable layers record when they were created: a fixed clock makes the bytes repeatable. */
  private static final long CLOCK_START = 1_700_000_000_000L;

  private static final Fingerprinter PLAIN = Fingerprinter.xxh3();
  private static final Fingerprinter SEEDED =
      Fingerprinter.xxh3().withSeed(16).withNormalizer(KeyNormalizer.parse("trim,lowercase"));

  private GoldenSnapshots() {}

  /** A snapshot to write: keys {@code from} to {@code to} (exclusive), and maybe (0, 0). */
  private record Golden(
      String file, MembershipFilter filter, Fingerprinter fp, int from, int to, boolean zero) {}

  /** Writes every golden file into {@code dir}, which must hold none yet. */
  static void write(Path dir) throws IOException {
    Files.createDirectories(dir);
    try (var existing = Files.list(dir)) {
      if (existing.anyMatch(f -> f.getFileName().toString().endsWith(".idx"))) {
        throw new IllegalStateException(
            dir
                + " already holds golden files: they are written once "
                + "per format version. For a new version, write into a new directory (v2/) and keep "
                + "the old one");
      }
    }
    StringJoiner expected = new StringJoiner("\n", "", "\n");
    expected.add("# Written by GoldenSnapshots.write (see ../README.md). Do not edit by hand.");
    for (Golden g : goldens()) {
      Path file = dir.resolve(g.file);
      FilterSnapshot.write(file, g.filter, g.fp);
      String name = g.file;
      expected.add(name + ".sha256=" + sha256(Files.readAllBytes(file)));
      expected.add(name + ".type=" + g.filter.type().displayName());
      expected.add(name + ".keys=" + g.from + ".." + g.to);
      expected.add(name + ".zero=" + g.zero);
      expected.add(name + ".maybe=" + maybes(g.filter, g.fp));
    }
    writeDamaged(dir, Files.readAllBytes(dir.resolve(DAMAGED_FROM)));
    Files.writeString(dir.resolve(EXPECTED), expected.toString(), UTF_8);
  }

  private static List<Golden> goldens() {
    List<Golden> all = new ArrayList<>();
    all.add(filled("bloom.idx", Filters.create(FilterType.BLOOM, 400, 0.01), PLAIN, 400));
    all.add(filled("blocked.idx", Filters.create(FilterType.BLOCKED, 400, 0.01), SEEDED, 400));
    all.add(
        filled(
            "partitioned.idx",
            Filters.create(FilterType.PARTITIONED, 400, 0.01),
            PLAIN.withSeed(-1),
            400));
    // three growth layers of 100, 200 and 400 keys
    all.add(
        filled(
            "scalable.idx",
            ScalableBloomFilter.builder()
                .initialCapacity(100)
                .falsePositiveRate(0.01)
                .clock(() -> CLOCK_START)
                .build(),
            PLAIN,
            400));
    all.add(timeSlices());
    all.add(filled("counting.idx", Filters.create(FilterType.COUNTING, 400, 0.01), PLAIN, 400));
    all.add(fullCuckoo());
    all.add(filled("exact.idx", Filters.create(FilterType.EXACT, 400, 0.01), PLAIN, 400));
    // the exact tier's set as the job saves it: grown past its first table, holding (0, 0)
    FingerprintSet set = FingerprintSet.withExpectedSize(16);
    set.put(0, 0);
    Golden exactSet = filled("exact-set.idx", set, SEEDED, 400);
    all.add(new Golden(exactSet.file, set, SEEDED, 0, 400, true));
    return all;
  }

  private static Golden filled(String file, MembershipFilter f, Fingerprinter fp, int keys) {
    for (int i = 0; i < keys; i++) {
      f.put(fp.fingerprint("key-" + i));
    }
    return new Golden(file, f, fp, 0, keys, false);
  }

  /**
   * Slices of one minute, two kept: keys 0-149 in the first, 150-299 in the second, 300-399 in the
   * third, whose start drops the first. The snapshot holds keys 150 to 399.
   */
  private static Golden timeSlices() {
    long[] now = {CLOCK_START};
    ScalableBloomFilter f =
        ScalableBloomFilter.builder()
            .initialCapacity(250)
            .falsePositiveRate(0.01)
            .sliceEvery(Duration.ofMinutes(1))
            .maxLayers(2)
            .clock(() -> now[0])
            .build();
    for (int i = 0; i < 400; i++) {
      if (i == 150 || i == 300) {
        now[0] += 60_000;
      }
      f.put(PLAIN.fingerprint("key-" + i));
    }
    if (f.droppedLayers() != 1) {
      throw new IllegalStateException("expected one dropped slice, got " + f.droppedLayers());
    }
    return new Golden("scalable-time-slices.idx", f, PLAIN, 150, 400, false);
  }

  /** A cuckoo filter filled until its table and stash are full: every part of its format used. */
  private static Golden fullCuckoo() {
    CuckooFilter f = CuckooFilter.create(400, 0.01);
    int keys = 0;
    try {
      while (true) {
        f.add(PLAIN.fingerprint("key-" + keys));
        keys++;
      }
    } catch (FilterFullException e) {
      // key `keys` was not stored, every earlier one was
    }
    if (!f.layout().get("stash").equals(CuckooFilter.STASH_CAPACITY)) {
      throw new IllegalStateException("expected a full stash, got " + f.layout());
    }
    return new Golden("cuckoo.idx", f, PLAIN, 0, keys, false);
  }

  /** The non-keys {@code f} answers "maybe", as a comma-separated list of their numbers. */
  static String maybes(MembershipFilter f, Fingerprinter fp) {
    StringJoiner maybe = new StringJoiner(",");
    for (int i = 0; i < NON_KEYS; i++) {
      if (f.mightContain(fp.fingerprint("absent-" + i))) {
        maybe.add(Integer.toString(i));
      }
    }
    return maybe.toString();
  }

  /** One copy of {@code good} per fault the reader must name; see GoldenSnapshotTest. */
  private static void writeDamaged(Path dir, byte[] good) throws IOException {
    int headerBytes = Short.toUnsignedInt(le(good).getShort(10));
    byte[] payloadByte = good.clone();
    payloadByte[headerBytes + (good.length - headerBytes) / 2] ^= 0x01;
    Files.write(dir.resolve("damaged-payload-byte.idx"), payloadByte);
    byte[] headerByte = good.clone();
    headerByte[24] ^= 0x01; // the count
    Files.write(dir.resolve("damaged-header-byte.idx"), headerByte);
    Files.write(
        dir.resolve("damaged-truncated.idx"),
        Arrays.copyOf(good, headerBytes + (good.length - headerBytes) / 2));
    byte[] magic = good.clone();
    magic[0] = 'X';
    Files.write(dir.resolve("damaged-magic.idx"), magic);
    byte[] version = good.clone();
    le(version).putShort(8, (short) (FilterSnapshot.FORMAT_VERSION + 1));
    Files.write(dir.resolve("damaged-version.idx"), resealed(version, headerBytes));
    byte[] type = good.clone();
    le(type).putShort(12, (short) 99);
    Files.write(dir.resolve("damaged-type.idx"), resealed(type, headerBytes));
  }

  /** {@code bytes} with the header CRC32C recomputed, so only the change made is wrong. */
  private static byte[] resealed(byte[] bytes, int headerBytes) {
    CRC32C crc = new CRC32C();
    crc.update(bytes, 0, headerBytes - 4);
    le(bytes).putInt(headerBytes - 4, (int) crc.getValue());
    return bytes;
  }

  private static ByteBuffer le(byte[] bytes) {
    return ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN);
  }

  static String sha256(byte[] bytes) {
    try {
      return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
    } catch (NoSuchAlgorithmException e) {
      throw new AssertionError("every JVM has SHA-256", e);
    }
  }
}
