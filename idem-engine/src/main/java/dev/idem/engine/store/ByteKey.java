package dev.idem.engine.store;

import java.util.Arrays;

/** A full key in a hash set: compared by its bytes, hashed by its fingerprint. */
record ByteKey(byte[] bytes, long fingerprintHi) {

  @Override
  public boolean equals(Object o) {
    return o instanceof ByteKey k && Arrays.equals(k.bytes, bytes);
  }

  @Override
  public int hashCode() {
    return (int) (fingerprintHi ^ (fingerprintHi >>> 32));
  }

  @Override
  public String toString() {
    return "ByteKey[" + bytes.length + " bytes]";
  }
}
