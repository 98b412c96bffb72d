package dev.idem.engine.store;

import dev.idem.core.filter.FingerprintSet;
import java.util.HashSet;
import java.util.Set;

/**
 * The exact tier on disk: lookups go to the {@code seen} column family of a {@link StateStore};
 * keys added since the last checkpoint wait in memory (and are looked up there first) until {@link
 * #drainPending} hands them to the checkpoint's write batch.
 *
 * <p>Used as a plain library store (no checkpoints), it writes its pending keys itself in unsynced
 * batches of {@code flushEvery} keys, so memory stays bounded.
 */
public final class RocksDbExactTier implements ExactTier {

  private final StateStore state;
  private final boolean fullKeyMode;
  private final int flushEvery;
  private final boolean ownsState;
  private final FingerprintSet pendingFingerprints = FingerprintSet.withExpectedSize(1 << 16);
  private final Set<ByteKey> pendingFullKeys = new HashSet<>();
  private final PendingKeys pending = new PendingKeys();
  private long size;

  private RocksDbExactTier(
      StateStore state, boolean fullKeyMode, long knownKeys, int flushEvery, boolean ownsState) {
    this.state = state;
    this.fullKeyMode = fullKeyMode;
    this.size = knownKeys;
    this.flushEvery = flushEvery;
    this.ownsState = ownsState;
  }

  /**
   * A store over {@code state} whose keys a checkpoint drains.
   *
   * @param knownKeys keys already in {@code state}, for {@link #size()}
   */
  public static RocksDbExactTier forCheckpoints(
      StateStore state, boolean fullKeyMode, long knownKeys) {
    return new RocksDbExactTier(state, fullKeyMode, knownKeys, 0, false);
  }

  /**
   * A store over {@code state} that writes its keys itself, every {@code flushEvery} keys, and
   * closes {@code state} when it is closed.
   */
  static RocksDbExactTier owning(StateStore state, boolean fullKeyMode, int flushEvery) {
    if (flushEvery < 1) {
      throw new IllegalArgumentException("flushEvery must be positive, got " + flushEvery);
    }
    return new RocksDbExactTier(state, fullKeyMode, 0, flushEvery, true);
  }

  @Override
  public boolean addIfAbsent(long hi, long lo, byte[] key) {
    if (contains(hi, lo, key)) {
      return false;
    }
    addNew(hi, lo, key);
    return true;
  }

  @Override
  public void addNew(long hi, long lo, byte[] key) {
    if (fullKeyMode) {
      pendingFullKeys.add(new ByteKey(key, hi));
    } else {
      pendingFingerprints.addIfAbsent(hi, lo);
    }
    pending.add(hi, lo, key);
    size++;
    if (flushEvery > 0 && pending.size() >= flushEvery) {
      try (StateStore.Commit c = state.commit()) {
        c.seen(pending).write(false);
      }
      clearPending();
    }
  }

  @Override
  public boolean contains(long hi, long lo, byte[] key) {
    boolean inPending =
        fullKeyMode
            ? pendingFullKeys.contains(new ByteKey(key, hi))
            : pendingFingerprints.contains(hi, lo);
    return inPending || state.seenContains(hi, lo, key);
  }

  @Override
  public long size() {
    return size;
  }

  @Override
  public String kind() {
    return "rocksdb";
  }

  @Override
  public void drainPending(PendingKeys sink) {
    sink.addAll(pending);
    // the caller commits them before the next lookup, so they may leave the pending sets now
    clearPending();
  }

  private void clearPending() {
    pending.clear();
    pendingFingerprints.clear();
    pendingFullKeys.clear();
  }

  @Override
  public void close() {
    try {
      if (flushEvery > 0 && pending.size() > 0) {
        try (StateStore.Commit c = state.commit()) {
          c.seen(pending).write(false);
        }
        clearPending();
      }
    } finally {
      if (ownsState) {
        state.close();
      }
    }
  }
}
