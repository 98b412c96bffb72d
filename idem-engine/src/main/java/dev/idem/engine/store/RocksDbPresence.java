package dev.idem.engine.store;

import java.io.IOException;
import java.io.InputStream;
import java.util.Properties;

/**
 * Whether RocksDB's Java binding is on the class path. It is an optional dependency of the engine
 * (84 MB of native libraries that an in-memory deduplicator never loads): what needs it checks here
 * first and says what to add, with the version idem is built with, rather than fail with a {@link
 * NoClassDefFoundError}. This class itself refers to no RocksDB type.
 */
public final class RocksDbPresence {

  private RocksDbPresence() {}

  /**
   * @param what what needs RocksDB, for the message ({@code "state(dir)"})
   * @throws IllegalStateException naming the dependency to add when the binding is missing
   */
  public static void require(String what) {
    require(what, RocksDbPresence.class.getClassLoader());
  }

  /** {@link #require(String)} against the classes {@code loader} sees. */
  static void require(String what, ClassLoader loader) {
    try {
      Class.forName("org.rocksdb.RocksDB", false, loader);
    } catch (ClassNotFoundException e) {
      throw new IllegalStateException(
          what
              + " keeps its keys in RocksDB, whose Java binding is not on the class path: add "
              + "the dependency org.rocksdb:rocksdbjni:"
              + version()
              + " (managed by dev.idem:idem-bom), or keep the keys in memory (no state "
              + "directory)",
          e);
    }
  }

  /**
   * The rocksdbjni version idem is built and tested with, as the build wrote it into {@code
   * rocksdbjni.properties}.
   */
  public static String version() {
    Properties p = new Properties();
    try (InputStream in = RocksDbPresence.class.getResourceAsStream("rocksdbjni.properties")) {
      if (in != null) {
        p.load(in);
      }
    } catch (IOException e) {
      // the message then names no version
    }
    return p.getProperty("version", "(the version idem-bom names)");
  }
}
