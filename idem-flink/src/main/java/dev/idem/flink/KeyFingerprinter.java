package dev.idem.flink;

import dev.idem.core.Fingerprint;
import dev.idem.core.Fingerprinter;
import java.io.IOException;
import java.io.Serializable;
import java.io.UncheckedIOException;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.core.memory.DataOutputSerializer;

/**
 * Turns a dedup key into idem's 128-bit fingerprint (XXH3-128, seed 0). Strings hash as UTF-8 and
 * byte arrays as themselves, so a key fingerprints the same here as in the {@code idem} command;
 * any other key hashes as the bytes of its Flink serializer, which is what Flink itself compares
 * keys by.
 */
final class KeyFingerprinter<K> implements Serializable {

  private static final long serialVersionUID = 1L;

  /** How keys are hashed: recorded with the operator's filter state, which must match it. */
  static final Fingerprinter HASHING = Fingerprinter.xxh3();

  private final TypeSerializer<K> serializer;
  private transient DataOutputSerializer buffer;

  KeyFingerprinter(TypeSerializer<K> serializer) {
    this.serializer = serializer;
  }

  Fingerprint of(K key) {
    Fingerprinter fp = HASHING;
    if (key instanceof CharSequence text) {
      return fp.fingerprint(text);
    }
    if (key instanceof byte[] bytes) {
      return fp.fingerprint(bytes);
    }
    if (buffer == null) {
      buffer = new DataOutputSerializer(64);
    }
    buffer.clear();
    try {
      serializer.serialize(key, buffer);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot serialize the dedup key " + key, e);
    }
    return fp.fingerprint(buffer.getSharedBuffer(), 0, buffer.length());
  }
}
