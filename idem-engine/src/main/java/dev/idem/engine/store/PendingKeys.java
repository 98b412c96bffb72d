package dev.idem.engine.store;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Keys added since the last checkpoint, in order: their fingerprints in one {@code long[]}, and
 * their bytes in full-key mode. Reused from one checkpoint to the next.
 */
public final class PendingKeys {

  private long[] fingerprints = new long[2 * 1024];
  private final List<byte[]> keys = new ArrayList<>();
  private int size;

  /** Appends one key ({@code key} null in fingerprint mode). */
  public void add(long hi, long lo, byte[] key) {
    if (2 * size == fingerprints.length) {
      fingerprints = Arrays.copyOf(fingerprints, 2 * fingerprints.length);
    }
    fingerprints[2 * size] = hi;
    fingerprints[2 * size + 1] = lo;
    if (key != null) {
      keys.add(key);
    }
    size++;
  }

  /** Appends everything in {@code other}. */
  public void addAll(PendingKeys other) {
    for (int i = 0; i < other.size; i++) {
      add(
          other.fingerprints[2 * i],
          other.fingerprints[2 * i + 1],
          other.keys.isEmpty() ? null : other.keys.get(i));
    }
  }

  public int size() {
    return size;
  }

  public long hi(int i) {
    return fingerprints[2 * i];
  }

  public long lo(int i) {
    return fingerprints[2 * i + 1];
  }

  /** The key's bytes, or {@code null} in fingerprint mode. */
  public byte[] key(int i) {
    return keys.isEmpty() ? null : keys.get(i);
  }

  public void clear() {
    size = 0;
    keys.clear();
  }
}
