package dev.idem.engine.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.URL;
import java.net.URLClassLoader;
import org.junit.jupiter.api.Test;
import org.rocksdb.RocksDB;

/** A library user without rocksdbjni is told which artifact, at which version, to add. */
class RocksDbPresenceTest {

  @Test
  void theMessageNamesTheArtifactAndTheVersionIdemIsBuiltWith() throws Exception {
    String version = RocksDbPresence.version();
    assertThat(version).matches("[0-9]+(\\.[0-9]+)+");
    // the version of the rocksdbjni jar these tests run with
    String jar = RocksDB.class.getProtectionDomain().getCodeSource().getLocation().getPath();
    assertThat(jar).contains("rocksdbjni-" + version);

    try (URLClassLoader withoutRocksDb = new URLClassLoader(new URL[0], null)) {
      assertThatThrownBy(() -> RocksDbPresence.require("state(dir)", withoutRocksDb))
          .isInstanceOf(IllegalStateException.class)
          .hasMessageStartingWith("state(dir) keeps its keys in RocksDB")
          .hasMessageContaining("org.rocksdb:rocksdbjni:" + version + " ");
    }
  }

  @Test
  void presentIsQuiet() {
    assertThatCode(() -> RocksDbPresence.require("state(dir)")).doesNotThrowAnyException();
  }
}
