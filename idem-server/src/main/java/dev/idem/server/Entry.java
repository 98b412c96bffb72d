package dev.idem.server;

import java.nio.charset.StandardCharsets;

/**
 * One named key of the server: a Bloom filter, a cuckoo filter or an IDEM seen-set. Its id names
 * its files in the state directory; its name is the client's key, any bytes.
 */
abstract class Entry {

  final long id;
  final byte[] name;

  /** Changed since its last snapshot (set by the event loop, cleared by the snapshot thread). */
  volatile boolean dirty = true;

  /** Its snapshot is being written: not durable yet (set and cleared by the snapshot thread). */
  volatile boolean saving;

  /** Deleted: the snapshot thread must not write it again (guarded by this entry's monitor). */
  boolean deleted;

  Entry(long id, byte[] name) {
    this.id = id;
    this.name = name.clone();
  }

  /** What {@code TYPE} answers. */
  abstract String typeName();

  /** Bytes of memory it holds, for INFO and the memory limit. */
  abstract long memoryBytes();

  String displayName() {
    return new String(name, StandardCharsets.UTF_8);
  }
}
