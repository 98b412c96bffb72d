package dev.idem.engine.store;

/**
 * Whether RocksDB's Java binding is on the class path. It is an optional dependency of the engine
 * (84 MB of native libraries that an in-memory deduplicator never loads): what needs it checks here
 * first and says what to add, rather than fail with a {@link NoClassDefFoundError}. This class
 * itself refers to no RocksDB type.
 */
public final class RocksDbPresence {

  private RocksDbPresence() {}

  /**
   * @param what what needs RocksDB, for the message ({@code "state(dir)"})
   * @throws IllegalStateException naming the dependency to add when the binding is missing
   */
  public static void require(String what) {
    try {
      Class.forName("org.rocksdb.RocksDB", false, RocksDbPresence.class.getClassLoader());
    } catch (ClassNotFoundException e) {
      throw new IllegalStateException(
          what
              + " keeps its keys in RocksDB, whose Java binding is not on the class path: add "
              + "the dependency org.rocksdb:rocksdbjni (the version idem-engine's POM names), or "
              + "keep the keys in memory (no state directory)",
          e);
    }
  }
}
