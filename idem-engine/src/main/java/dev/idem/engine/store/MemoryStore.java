package dev.idem.engine.store;

import dev.idem.core.filter.FingerprintSet;
import java.util.HashSet;
import java.util.Set;

/**
 * The exact tier in memory: a {@link FingerprintSet} (about 21 bytes per key) in fingerprint
 * mode, a hash set of the keys' bytes in full-key mode. With a durable {@link StateStore} behind
 * it, the store is rebuilt from there on resume and RocksDB is only written, at checkpoints.
 */
public final class MemoryStore implements ExactStore {

  private final FingerprintSet fingerprints;
  private final Set<ByteKey> fullKeys;
  private final PendingKeys pending;

  private MemoryStore(long expectedKeys, boolean fullKeyMode, boolean trackPending) {
    this.fingerprints = fullKeyMode ? null : FingerprintSet.withExpectedSize(expectedKeys);
    this.fullKeys = fullKeyMode ? new HashSet<>() : null;
    this.pending = trackPending ? new PendingKeys() : null;
  }

  /**
   * An empty store.
   *
   * @param trackPending whether new keys are kept for {@link #drainPending} (only when a
   *     checkpoint will drain them; otherwise they would pile up)
   */
  public static MemoryStore create(long expectedKeys, boolean fullKeyMode, boolean trackPending) {
    return new MemoryStore(expectedKeys, fullKeyMode, trackPending);
  }

  /** Loads every key of a durable store (the resume path). */
  public void loadFrom(StateStore state) {
    state.forEachSeen((hi, lo, key) -> {
      if (fullKeys != null) {
        fullKeys.add(new ByteKey(key, hi));
      } else {
        fingerprints.addIfAbsent(hi, lo);
      }
    });
  }

  @Override
  public boolean addIfAbsent(long hi, long lo, byte[] key) {
    boolean added = fullKeys != null ? fullKeys.add(new ByteKey(key, hi))
        : fingerprints.addIfAbsent(hi, lo);
    if (added && pending != null) {
      pending.add(hi, lo, key);
    }
    return added;
  }

  @Override
  public void addNew(long hi, long lo, byte[] key) {
    addIfAbsent(hi, lo, key); // in memory the check costs no more than the insert
  }

  @Override
  public boolean contains(long hi, long lo, byte[] key) {
    return fullKeys != null ? fullKeys.contains(new ByteKey(key, hi))
        : fingerprints.contains(hi, lo);
  }

  @Override
  public long size() {
    return fullKeys != null ? fullKeys.size() : fingerprints.size();
  }

  @Override
  public String kind() {
    return "memory";
  }

  @Override
  public void drainPending(PendingKeys sink) {
    if (pending != null) {
      sink.addAll(pending);
      pending.clear();
    }
  }

  @Override
  public void close() {}

}
