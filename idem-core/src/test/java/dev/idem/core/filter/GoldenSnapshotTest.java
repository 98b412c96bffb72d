package dev.idem.core.filter;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.idem.core.Fingerprinter;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Format compatibility: snapshots written once by the version-1 writer ({@link GoldenSnapshots},
 * {@code src/test/resources/golden/v1}) still load bit for bit, answer as they did, and write back
 * to the identical bytes; damaged copies are refused naming the fault. Unlike a round trip, this
 * fails when the writer and the reader change together.
 */
class GoldenSnapshotTest {

  private static final String DIR = "/golden/v1/";
  private static final Properties EXPECTED = expected();

  @TempDir Path dir;

  @ParameterizedTest
  @ValueSource(
      strings = {
        "bloom.idx",
        "blocked.idx",
        "partitioned.idx",
        "scalable.idx",
        "scalable-time-slices.idx",
        "counting.idx",
        "cuckoo.idx",
        "exact.idx",
        "exact-set.idx"
      })
  void loadsBitForBitAnswersAsRecordedAndWritesTheSameBytes(String name) throws IOException {
    byte[] golden = resource(name);
    assertThat(GoldenSnapshots.sha256(golden))
        .as(
            "%s is not the file that was checked in; golden files are written once (see "
                + "golden/README.md)",
            name)
        .isEqualTo(expected(name, "sha256"));
    Path file = dir.resolve(name);
    Files.write(file, golden);
    List<FilterSnapshot> carriers = new ArrayList<>();
    carriers.add(FilterSnapshot.read(file));
    carriers.add(FilterSnapshot.map(file));
    carriers.add(FilterSnapshot.fromBytes(golden));
    for (FilterSnapshot s : carriers) {
      String how = name + " via " + (s.file() == null ? "bytes" : s.loadMode());
      MembershipFilter f = s.filter();
      Fingerprinter fp = s.fingerprinter();
      assertThat(s.formatVersion()).isEqualTo(1);
      assertThat(f.type().displayName()).as(how).isEqualTo(expected(name, "type"));
      answersAsRecorded(name, f, fp, how);
      byte[] again = FilterSnapshot.toBytes(f, fp);
      if (CONVERTED.contains(name)) {
        // An exact set of layout 0 (linear probing, before buckets) is rebuilt into buckets on
        // load and written as layout 1: those bytes answer the same and write back unchanged.
        assertThat(again).as("%s written again", how).isNotEqualTo(golden);
        MembershipFilter reread = FilterSnapshot.fromBytes(again).filter();
        answersAsRecorded(name, reread, fp, how + ", written as layout 1 and read back");
        assertThat(FilterSnapshot.toBytes(reread, fp))
            .as("%s layout 1 again", how)
            .isEqualTo(again);
      } else {
        assertThat(again).as("%s written again", how).isEqualTo(golden);
      }
    }
    if (!CONVERTED.contains(name)) {
      FilterSnapshot.write(file, carriers.get(0).filter(), carriers.get(0).fingerprinter());
      assertThat(GoldenSnapshots.sha256(Files.readAllBytes(file)))
          .as("%s saved to a file", name)
          .isEqualTo(expected(name, "sha256"));
    }
  }

  /** The golden files of version 1 whose type reads an older layout and writes a newer one. */
  private static final Set<String> CONVERTED = Set.of("exact.idx", "exact-set.idx");

  private static void answersAsRecorded(
      String name, MembershipFilter f, Fingerprinter fp, String how) {
    String[] keys = expected(name, "keys").split("\\.\\.");
    for (int i = Integer.parseInt(keys[0]); i < Integer.parseInt(keys[1]); i++) {
      assertThat(f.mightContain(fp.fingerprint("key-" + i))).as("%s: key-%d", how, i).isTrue();
    }
    if (Boolean.parseBoolean(expected(name, "zero"))) {
      assertThat(f.mightContain(0, 0)).as("%s: (0, 0)", how).isTrue();
    }
    assertThat(GoldenSnapshots.maybes(f, fp))
        .as("%s: non-keys answered maybe", how)
        .isEqualTo(expected(name, "maybe"));
  }

  @ParameterizedTest
  @CsvSource(
      delimiter = '|',
      value = {
        "damaged-payload-byte.idx | payload checksum mismatch: the filter data is corrupt",
        "damaged-header-byte.idx  | header checksum mismatch: the header is corrupt",
        "damaged-truncated.idx    | truncated: the payload needs",
        "damaged-magic.idx        | not an idem filter snapshot (bad magic bytes)",
        "damaged-version.idx      | format version 2 was written by a newer idem; this build reads "
            + "up to version 1",
        "damaged-type.idx         | unknown filter type id 99; this build reads bloom (1), "
            + "blocked (2),",
      })
  void damagedCopiesAreRefusedNamingTheFault(String name, String fault) throws IOException {
    byte[] bytes = resource(name);
    Path file = dir.resolve(name);
    Files.write(file, bytes);
    for (FilterSnapshot.LoadMode mode : FilterSnapshot.LoadMode.values()) {
      assertThat(catchThrowable(() -> FilterSnapshot.open(file, mode)))
          .as("%s (%s)", name, mode)
          .isInstanceOf(SnapshotException.class)
          .hasMessageStartingWith(file + ": " + fault);
    }
    assertThat(catchThrowable(() -> FilterSnapshot.fromBytes(bytes)))
        .as("%s (bytes)", name)
        .isInstanceOf(SnapshotException.class)
        .hasMessageStartingWith(SnapshotException.BYTES + ": " + fault);
  }

  /**
   * Not a test: writes the golden files, once per format version. Run from the root with {@code
   * ./mvnw -B -o -pl idem-core test -Dtest=GoldenSnapshotTest#writeGoldenFiles
   * -Didem.golden.write=src/test/resources/golden/vN} (the path is relative to idem-core).
   */
  @Test
  @EnabledIfSystemProperty(named = "idem.golden.write", matches = ".+")
  void writeGoldenFiles() throws IOException {
    GoldenSnapshots.write(Path.of(System.getProperty("idem.golden.write")));
  }

  private static String expected(String file, String field) {
    String value = EXPECTED.getProperty(file + "." + field);
    assertThat(value).as("%s has no %s in %s", file, field, GoldenSnapshots.EXPECTED).isNotNull();
    return value;
  }

  private static Properties expected() {
    try (InputStream in =
        GoldenSnapshotTest.class.getResourceAsStream(DIR + GoldenSnapshots.EXPECTED)) {
      Properties p = new Properties();
      if (in != null) { // a missing file fails every case, naming what is missing
        p.load(in);
      }
      return p;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static byte[] resource(String name) throws IOException {
    try (InputStream in = GoldenSnapshotTest.class.getResourceAsStream(DIR + name)) {
      assertThat(in).as("golden file %s%s", DIR, name).isNotNull();
      return in.readAllBytes();
    }
  }
}
