package dev.idem.engine.store;

import dev.idem.core.Fingerprinter;
import dev.idem.core.filter.FilterSnapshot;
import dev.idem.core.filter.FingerprintSet;
import java.io.IOException;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.Set;

/**
 * The exact tier in memory: a {@link FingerprintSet} (about 21 bytes per key) in fingerprint mode,
 * a hash set of the keys' bytes in full-key mode. With a durable {@link StateStore} behind it,
 * RocksDB is only written, at checkpoints; on resume the set comes back from its last {@linkplain
 * #writeSnapshot snapshot} plus the keys journaled after it, or from RocksDB alone.
 */
public final class MemoryExactTier implements ExactTier {

  private final FingerprintSet fingerprints;
  private final Set<ByteKey> fullKeys;
  private final PendingKeys pending;

  private MemoryExactTier(FingerprintSet fingerprints, boolean fullKeyMode, boolean trackPending) {
    this.fingerprints = fingerprints;
    this.fullKeys = fullKeyMode ? new HashSet<>() : null;
    this.pending = trackPending ? new PendingKeys() : null;
  }

  /**
   * An empty store.
   *
   * @param trackPending whether new keys are kept for {@link #drainPending} (only when a checkpoint
   *     will drain them; otherwise they would pile up)
   */
  public static MemoryExactTier create(
      long expectedKeys, boolean fullKeyMode, boolean trackPending) {
    return new MemoryExactTier(
        fullKeyMode ? null : FingerprintSet.withExpectedSize(expectedKeys),
        fullKeyMode,
        trackPending);
  }

  /**
   * A fingerprint-mode store holding what {@link #writeSnapshot} saved in {@code file}.
   *
   * @throws IOException when the file is missing, damaged, not an exact set, or was written with
   *     another fingerprinter (the message names the file and the fault)
   */
  public static MemoryExactTier fromSnapshot(
      Path file, Fingerprinter fingerprinter, boolean trackPending) throws IOException {
    FilterSnapshot s = FilterSnapshot.read(file);
    if (!(s.filter() instanceof FingerprintSet set)) {
      throw new IOException(
          file
              + ": a "
              + s.filter().type().displayName()
              + " snapshot, not an exact fingerprint set");
    }
    if (!s.fingerprinter().equals(fingerprinter)) {
      throw new IOException(
          file + ": written with " + s.fingerprinter() + ", the job hashes with " + fingerprinter);
    }
    return new MemoryExactTier(set, false, trackPending);
  }

  /**
   * Saves the fingerprint set atomically (see {@link FilterSnapshot#write}); the set must not
   * change meanwhile.
   *
   * @throws IllegalStateException in full-key mode, whose keys live in RocksDB's {@code seen}
   */
  public void writeSnapshot(Path file, Fingerprinter fingerprinter) throws IOException {
    if (fingerprints == null) {
      throw new IllegalStateException("full keys are not snapshotted; they are in `seen`");
    }
    FilterSnapshot.write(file, fingerprints, fingerprinter);
  }

  @Override
  public void prefetch(long[] fingerprintPairs, int from, int to) {
    if (fingerprints != null) {
      fingerprints.prefetch(fingerprintPairs, from, to);
    }
  }

  /** Whether {@link #writeSnapshot} applies: fingerprint mode. */
  public boolean snapshots() {
    return fingerprints != null;
  }

  /** Bytes a {@link #writeSnapshot snapshot} takes now (fingerprint mode), about. */
  public long snapshotBytes() {
    return fingerprints == null ? 0 : fingerprints.bitSize() / 8;
  }

  /** Loads every key of a durable store (the resume path). */
  public void loadFrom(StateStore state) {
    state.forEachSeen((hi, lo, key) -> restore(hi, lo, key));
  }

  /**
   * Adds a key that is already durable (replayed on resume): unlike {@link #addNew}, it is not
   * pending, so the next checkpoint does not journal it again.
   */
  public void restore(long hi, long lo, byte[] key) {
    if (fullKeys != null) {
      fullKeys.add(new ByteKey(key, hi));
    } else {
      fingerprints.addIfAbsent(hi, lo);
    }
  }

  @Override
  public boolean addIfAbsent(long hi, long lo, byte[] key) {
    boolean added =
        fullKeys != null ? fullKeys.add(new ByteKey(key, hi)) : fingerprints.addIfAbsent(hi, lo);
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
    return fullKeys != null
        ? fullKeys.contains(new ByteKey(key, hi))
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
