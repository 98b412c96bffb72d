package dev.idem.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.rocksdb.RocksDB;
import org.rocksdb.util.Environment;

class RocksDbLibraryTest {

  @TempDir Path root;

  @Test
  void copiesTheJarsLibraryOnceIntoADirectoryNamedByItsChecksum() throws Exception {
    Path dir = RocksDbLibrary.cached(root);
    assertThat(dir).isNotNull().startsWith(root);
    assertThat(dir.getFileName().toString()).matches("rocksdbjni-[0-9a-f]{8}");
    Path lib = dir.resolve(Environment.getJniLibraryFileName("rocksdbjni"));
    long size;
    try (var in =
        RocksDB.class
            .getClassLoader()
            .getResourceAsStream(Environment.getJniLibraryFileName("rocksdb"))) {
      size = in.readAllBytes().length;
    }
    assertThat(Files.size(lib)).isEqualTo(size);
    try (var files = Files.list(dir)) {
      assertThat(files).as("no temporary files left").hasSize(1);
    }

    FileTime written = FileTime.fromMillis(1_000_000L);
    Files.setLastModifiedTime(lib, written);
    assertThat(RocksDbLibrary.cached(root)).isEqualTo(dir);
    assertThat(Files.getLastModifiedTime(lib)).as("reused, not copied again").isEqualTo(written);

    Files.write(lib, new byte[10]); // cut short (a full disk, say): copied again
    assertThat(RocksDbLibrary.cached(root)).isEqualTo(dir);
    assertThat(Files.size(lib)).isEqualTo(size);
  }

  @Test
  void rocksDbWorksAfterLoadingFromTheCache() throws Exception {
    RocksDbLibrary.load();
    try (var options = new org.rocksdb.Options().setCreateIfMissing(true);
        RocksDB db = RocksDB.open(options, root.resolve("db").toString())) {
      db.put(new byte[] {1}, new byte[] {2});
      assertThat(db.get(new byte[] {1})).containsExactly(2);
    }
  }
}
