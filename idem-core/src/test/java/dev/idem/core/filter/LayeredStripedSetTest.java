package dev.idem.core.filter;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idem.core.Fingerprinter;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The exact striped set used in place: mapped from a snapshot with page checksums, a heap overlay
 * for new keys, mapped delta levels, its stripes brought into the heap one at a time; against a
 * {@code HashSet}, and with a damaged page that must be refused at first read, never answered from.
 */
class LayeredStripedSetTest {

  private static final Fingerprinter FP = Fingerprinter.xxh3();

  record Key(long hi, long lo) {}

  @Provide
  Arbitrary<List<Key>> keys() {
    Arbitrary<Long> hi = Arbitraries.oneOf(Arbitraries.of(0L, -1L, 7L), Arbitraries.longs());
    Arbitrary<Long> lo = Arbitraries.oneOf(Arbitraries.of(0L, -1L), Arbitraries.longs());
    return Combinators.combine(hi, lo).as(Key::new).list().ofMaxSize(2000);
  }

  /**
   * Keys go in, in rounds, as a running job adds them: the set stays in the heap, and after each
   * round it writes a full snapshot or a delta of the keys since its newest snapshot (one more
   * level). After each round a resume maps the full snapshot and every delta since, and goes on:
   * more keys go in while its stripes come into the heap one at a time, at random moments;
   * throughout, it answers as a {@code HashSet} does.
   */
  @Property(tries = 60)
  void resumedSetBehavesLikeAHashSetWhileItComesIntoTheHeap(
      @ForAll("keys") List<Key> keys,
      @ForAll @IntRange(min = 0, max = 255) int deltaRounds,
      @ForAll @IntRange(min = 1, max = 40) int promoteEvery)
      throws IOException {
    Path dir = Files.createTempDirectory("layered");
    try {
      StripedFingerprintSet set = StripedFingerprintSet.withExpectedSize(16);
      StripedFingerprintSet sinceSnapshot = StripedFingerprintSet.withExpectedSize(0);
      Set<Key> model = new HashSet<>();
      Path baseFile = null;
      List<Path> deltaFiles = new ArrayList<>();
      int part = Math.max(1, keys.size() / 8);
      for (int round = 0; round * part <= keys.size(); round++) {
        for (Key k : keys.subList(round * part, Math.min(keys.size(), (round + 1) * part))) {
          boolean added = set.addIfAbsent(k.hi(), k.lo());
          assertThat(added).isEqualTo(model.add(k));
          if (added) {
            sinceSnapshot.addIfAbsent(k.hi(), k.lo());
          }
          assertThat(set.contains(k.hi(), k.lo())).isTrue();
        }
        boolean delta = baseFile != null && ((deltaRounds >> (round & 7)) & 1) == 1;
        Path file = dir.resolve((delta ? "delta-" : "full-") + round + ".snap");
        FilterSnapshot.writePaged(file, delta ? sinceSnapshot : set, FP);
        sinceSnapshot = StripedFingerprintSet.withExpectedSize(0);
        if (delta) {
          deltaFiles.add(file);
        } else {
          baseFile = file;
          deltaFiles.clear();
        }
        assertThat(set.layered()).isFalse(); // the running set is never read from its files

        StripedFingerprintSet resumed =
            (StripedFingerprintSet) FilterSnapshot.map(baseFile).filter();
        for (Path d : deltaFiles) {
          resumed.attachDelta((StripedFingerprintSet) FilterSnapshot.map(d).filter());
        }
        assertThat(resumed.layered()).isTrue();
        assertThat(resumed.deltaLevels()).isEqualTo(deltaFiles.size());
        assertSame(resumed, model);
        Set<Key> resumedModel = new HashSet<>(model);
        int calls = 0;
        for (Key k : keys.subList(0, Math.min(keys.size(), (round + 2) * part))) {
          assertThat(resumed.addIfAbsent(k.hi(), k.lo())).isEqualTo(resumedModel.add(k));
          if (++calls % promoteEvery == 0) {
            resumed.promoteNext();
          }
        }
        assertSame(resumed, resumedModel);
        while (!resumed.promoteNext()) {}
        assertThat(resumed.layered()).isFalse();
        assertThat(resumed.deltaLevels()).isZero();
        assertSame(resumed, resumedModel);
      }
    } finally {
      try (var files = Files.list(dir)) {
        files.forEach(
            f -> {
              try {
                Files.delete(f);
              } catch (IOException e) {
                throw new UncheckedIOException(e);
              }
            });
      }
      Files.delete(dir);
    }
  }

  /** A set built in home-slot order holds what one built key by key holds. */
  @Property(tries = 100)
  void aSetBuiltFromKeysInHomeOrderHoldsTheKeys(@ForAll("keys") List<Key> keys) {
    long[] pairs = new long[2 * keys.size() + 6];
    Set<Key> model = new HashSet<>();
    for (int i = 0; i < keys.size(); i++) {
      pairs[2 * i] = keys.get(i).hi();
      pairs[2 * i + 1] = keys.get(i).lo();
      model.add(keys.get(i));
    }
    pairs[2 * keys.size()] = 99; // past count: not a key
    assertSame(StripedFingerprintSet.ofKeys(pairs, keys.size()), model);
  }

  private static void assertSame(StripedFingerprintSet set, Set<Key> model) {
    assertThat(set.size()).isEqualTo(model.size());
    for (Key k : model) {
      assertThat(set.contains(k.hi(), k.lo())).as("holds %s", k).isTrue();
    }
    Set<Key> seen = new HashSet<>();
    set.forEach((hi, lo) -> assertThat(seen.add(new Key(hi, lo))).isTrue());
    assertThat(seen).isEqualTo(model);
    for (long i = 1; i <= 200; i++) {
      Key absent = new Key(i * 0x9E3779B97F4A7C15L, ~i * 0xC2B2AE3D27D4EB4FL);
      assertThat(set.contains(absent.hi(), absent.lo())).isEqualTo(model.contains(absent));
    }
  }

  @Test
  void mappedInPlaceReadsNothingAtOpenAndVerifiesPagesAsUsed(@TempDir Path dir) throws IOException {
    StripedFingerprintSet set = StripedFingerprintSet.withExpectedSize(50_000);
    for (long i = 0; i < 50_000; i++) {
      set.addIfAbsent(i * 0x9E3779B97F4A7C15L + 1, i * 0xBF58476D1CE4E5B9L);
    }
    Path file = dir.resolve("set.snap");
    FilterSnapshot.writePaged(file, set, FP);
    FilterSnapshot s = FilterSnapshot.map(file);
    assertThat(s.verifiedLazily()).isTrue();
    assertThat(s.pagesVerified()[0]).isZero();
    StripedFingerprintSet mapped = (StripedFingerprintSet) s.filter();
    assertThat(mapped.contains(1, 0)).isTrue();
    long[] after = s.pagesVerified();
    assertThat(after[0]).isBetween(1L, 2L); // the page of one bucket
    s.verifyAllPages();
    assertThat(s.pagesVerified()[0]).isEqualTo(after[1]);
    // read into the heap, the same file is verified whole and answers the same
    StripedFingerprintSet heap = (StripedFingerprintSet) FilterSnapshot.read(file).filter();
    assertThat(heap.layered()).isFalse();
    assertThat(heap.size()).isEqualTo(50_000);
  }

  /**
   * One flipped byte in a stripe's table: the map opens (nothing is read), and the first probe that
   * reads the damaged page throws, naming the file and page, instead of answering; pages that are
   * intact still answer. Reading the whole file into the heap refuses it at once.
   */
  @Test
  void damagedPageIsRefusedAtFirstReadNeverAnswered(@TempDir Path dir) throws IOException {
    StripedFingerprintSet set = StripedFingerprintSet.withExpectedSize(20_000);
    long[][] keys = new long[20_000][];
    for (int i = 0; i < keys.length; i++) {
      keys[i] = new long[] {(i + 1) * 0x9E3779B97F4A7C15L, i * 0xBF58476D1CE4E5B9L};
      set.addIfAbsent(keys[i][0], keys[i][1]);
    }
    Path file = dir.resolve("set.snap");
    FilterSnapshot.writePaged(file, set, FP);
    long headerBytes = headerBytes(file);
    long damagedAt = headerBytes + 3 * 4096 + 100; // page 3 of the payload
    try (FileChannel ch =
        FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
      ByteBuffer b = ByteBuffer.allocate(1);
      ch.read(b, damagedAt);
      b.put(0, (byte) (b.get(0) ^ 0x40)).rewind();
      ch.write(b, damagedAt);
    }
    StripedFingerprintSet mapped = (StripedFingerprintSet) FilterSnapshot.map(file).filter();
    int refused = 0;
    int answered = 0;
    for (long[] k : keys) {
      try {
        assertThat(mapped.contains(k[0], k[1])).isTrue();
        answered++;
      } catch (SnapshotDamagedException e) {
        assertThat(e.file()).isEqualTo(file);
        assertThat(e.page()).isEqualTo(3);
        assertThat(e.getMessage()).contains(file.toString()).contains("page 3 ");
        refused++;
      }
    }
    assertThat(refused).isPositive();
    assertThat(answered).isPositive();
    // read into the heap, the file is refused at once (here by the table's own count, before the
    // payload checksum is reached)
    assertThatThrownBy(() -> FilterSnapshot.read(file))
        .isInstanceOf(SnapshotException.class)
        .hasMessageContaining(file.toString());
    // writing the damaged set on never launders the page into a fresh checksum
    assertThatThrownBy(() -> FilterSnapshot.writePaged(dir.resolve("again.snap"), mapped, FP))
        .isInstanceOf(SnapshotDamagedException.class);
  }

  @Test
  void damagedPageTableIsRefusedAtOpen(@TempDir Path dir) throws IOException {
    StripedFingerprintSet set = StripedFingerprintSet.withExpectedSize(1000);
    set.addIfAbsent(1, 2);
    Path file = dir.resolve("set.snap");
    FilterSnapshot.writePaged(file, set, FP);
    long size = Files.size(file);
    try (FileChannel ch = FileChannel.open(file, StandardOpenOption.WRITE)) {
      ch.write(ByteBuffer.wrap(new byte[] {0x5A}), size - 8 - 2); // inside the page table
    }
    assertThatThrownBy(() -> FilterSnapshot.map(file))
        .isInstanceOf(SnapshotException.class)
        .hasMessageContaining("page table checksum mismatch");
  }

  /** A blocked Bloom filter mapped from a paged snapshot: lazily verified, copy-on-write puts. */
  @Test
  void bloomFilterMappedWithPageChecksums(@TempDir Path dir) throws IOException {
    MembershipFilter bloom = Filters.create(FilterType.BLOCKED, 100_000, 0.01);
    for (long i = 0; i < 50_000; i++) {
      bloom.put(i * 31 + 7, i * 0x9E3779B97F4A7C15L);
    }
    Path file = dir.resolve("bloom.snap");
    FilterSnapshot.writePaged(file, bloom, FP);
    byte[] before = Files.readAllBytes(file);
    FilterSnapshot s = FilterSnapshot.map(file);
    assertThat(s.verifiedLazily()).isTrue();
    MembershipFilter mapped = s.filter();
    for (long i = 0; i < 50_000; i++) {
      assertThat(mapped.mightContain(i * 31 + 7, i * 0x9E3779B97F4A7C15L)).isTrue();
    }
    mapped.put(-5, -6);
    assertThat(mapped.mightContain(-5, -6)).isTrue();
    assertThat(Files.readAllBytes(file)).isEqualTo(before); // copy-on-write
    Path again = dir.resolve("again.snap");
    FilterSnapshot.writePaged(again, mapped, FP);
    assertThat(FilterSnapshot.read(again).filter().mightContain(-5, -6)).isTrue();
  }

  private static long headerBytes(Path file) throws IOException {
    try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
      ByteBuffer b = ByteBuffer.allocate(2).order(java.nio.ByteOrder.LITTLE_ENDIAN);
      ch.read(b, 10);
      return Short.toUnsignedInt(b.getShort(0));
    }
  }
}
