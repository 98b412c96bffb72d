package dev.idem.engine.store;

import dev.idem.core.Fingerprint;

/**
 * A checkpoint's puts into {@code seen} in RocksDB's own write-batch encoding, built in Java and
 * handed over in one call ({@code new WriteBatch(bytes)}): one native call a key, as {@code
 * WriteBatch.put} makes, cost more than the memtable inserts themselves for the tens of thousands
 * of keys a checkpoint holds.
 *
 * <p>The encoding (RocksDB's {@code db/write_batch.cc}, unchanged since its first releases): a
 * header of the sequence number (8 bytes, little-endian; the database sets it when it writes) and
 * the record count (4 bytes, little-endian), then per record the type {@code
 * kTypeColumnFamilyValue} (5), the column family's id, the key and the value, the id and the two
 * lengths as varint32s. What this writes is what the store's files hold either way: the puts are
 * the same, only how they reach RocksDB differs.
 */
final class SeenBatch {

  /**
   * RocksDB's {@code kTypeColumnFamilyValue}: a put into a column family other than the default.
   */
  private static final byte COLUMN_FAMILY_VALUE = 5;

  private static final int HEADER = 12;

  private SeenBatch() {}

  /**
   * The encoded batch of puts of {@code keys}, in {@code order}, into column family {@code cf}: in
   * fingerprint mode the 16-byte fingerprint with an empty value, in full-key mode the key with its
   * fingerprint as the value (as {@link StateStore} lays {@code seen} out).
   */
  static byte[] encode(int cf, PendingKeys keys, int[] order, boolean fullKeys) {
    int prefix = 1 + varintLength(cf);
    long size = HEADER;
    for (int i : order) {
      int keyLength = fullKeys ? keys.key(i).length : 16;
      int valueLength = fullKeys ? 16 : 0;
      size +=
          prefix + varintLength(keyLength) + keyLength + varintLength(valueLength) + valueLength;
    }
    if (size > Integer.MAX_VALUE - 16) {
      throw new IllegalArgumentException("a checkpoint of " + size + " bytes of keys");
    }
    byte[] out = new byte[(int) size];
    int at = HEADER; // the sequence number stays 0
    writeIntLittleEndian(out, 8, order.length);
    for (int i : order) {
      out[at++] = COLUMN_FAMILY_VALUE;
      at = writeVarint(out, at, cf);
      if (fullKeys) {
        byte[] key = keys.key(i);
        at = writeVarint(out, at, key.length);
        System.arraycopy(key, 0, out, at, key.length);
        at += key.length;
        at = writeVarint(out, at, 16);
        Fingerprint.write(keys.hi(i), keys.lo(i), out, at);
        at += 16;
      } else {
        at = writeVarint(out, at, 16);
        Fingerprint.write(keys.hi(i), keys.lo(i), out, at);
        at += 16;
        at = writeVarint(out, at, 0);
      }
    }
    return out;
  }

  private static void writeIntLittleEndian(byte[] out, int at, int v) {
    out[at] = (byte) v;
    out[at + 1] = (byte) (v >>> 8);
    out[at + 2] = (byte) (v >>> 16);
    out[at + 3] = (byte) (v >>> 24);
  }

  private static int varintLength(int v) {
    int n = 1;
    while ((v & ~0x7f) != 0) {
      v >>>= 7;
      n++;
    }
    return n;
  }

  private static int writeVarint(byte[] out, int at, int v) {
    while ((v & ~0x7f) != 0) {
      out[at++] = (byte) ((v & 0x7f) | 0x80);
      v >>>= 7;
    }
    out[at++] = (byte) v;
    return at;
  }
}
