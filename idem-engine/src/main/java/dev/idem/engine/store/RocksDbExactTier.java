package dev.idem.engine.store;

import dev.idem.core.Fingerprint;
import dev.idem.core.filter.FingerprintSet;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
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
  private final SeenAhead ahead;
  private long size;

  private RocksDbExactTier(
      StateStore state, boolean fullKeyMode, long knownKeys, int flushEvery, boolean ownsState) {
    this.state = state;
    this.fullKeyMode = fullKeyMode;
    this.size = knownKeys;
    this.flushEvery = flushEvery;
    this.ownsState = ownsState;
    this.ahead = new SeenAhead(fullKeyMode);
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
    if (inPending) {
      return true;
    }
    int known = ahead.answer(hi, lo, key);
    return known == SeenAhead.UNKNOWN ? state.seenContains(hi, lo, key) : known == 1;
  }

  /**
   * Looks up in {@code seen}, all in one multi-get, the keys that {@link #contains} (or {@link
   * #addIfAbsent}) is about to be asked for: records {@code which[0..count)} of {@code
   * fingerprints} (hi, lo pairs) and {@code keys} (full keys, or {@code null} entries in
   * fingerprint mode). A point lookup costs a native call and a walk through RocksDB's levels per
   * key; together they cost that once. Answers are kept until the pending keys next go into {@code
   * seen}; a key asked for later, or not looked up ahead, is read on its own as before.
   */
  public void lookAhead(long[] fingerprints, byte[][] keys, int[] which, int count) {
    ahead.clear(); // the last batch's answers: not asked for again
    List<byte[]> seenKeys = new ArrayList<>(count);
    int[] asked = new int[count];
    int n = 0;
    for (int j = 0; j < count; j++) {
      int i = which[j];
      long hi = fingerprints[2 * i];
      long lo = fingerprints[2 * i + 1];
      byte[] key = keys == null ? null : keys[i];
      boolean inPending =
          fullKeyMode
              ? pendingFullKeys.contains(new ByteKey(key, hi))
              : pendingFingerprints.contains(hi, lo);
      if (inPending) {
        continue; // answered without `seen`
      }
      byte[] seenKey = key;
      if (!fullKeyMode) {
        seenKey = new byte[16];
        Fingerprint.write(hi, lo, seenKey, 0);
      }
      seenKeys.add(seenKey);
      asked[n++] = i;
    }
    boolean[] found = state.seenContains(seenKeys);
    for (int j = 0; j < n; j++) {
      int i = asked[j];
      ahead.record(
          fingerprints[2 * i], fingerprints[2 * i + 1], keys == null ? null : keys[i], found[j]);
    }
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
    ahead.clear(); // what was pending is in `seen` now, or about to be: "not there" may be stale
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
