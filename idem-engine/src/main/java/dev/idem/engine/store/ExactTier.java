package dev.idem.engine.store;

/**
 * The exact tier: answers "seen before?" without error. Keys are identified by their 128-bit
 * fingerprint, and in full-key mode also by their bytes (then two keys with the same fingerprint
 * stay distinct).
 *
 * <p>New keys are held as <em>pending</em> until {@link #drainPending} hands them to the checkpoint
 * that makes them durable; lookups see pending keys too. Not thread-safe.
 */
public interface ExactTier extends AutoCloseable {

  /**
   * A hint that keys {@code from} to {@code to} of {@code fingerprints} (hi, lo pairs) come next,
   * for stores whose lookups are cache misses worth overlapping. Changes nothing.
   */
  default void prefetch(long[] fingerprints, int from, int to) {}

  /**
   * Records the key if absent; true when it was absent.
   *
   * @param key the key's bytes in full-key mode, {@code null} in fingerprint mode
   */
  boolean addIfAbsent(long hi, long lo, byte[] key);

  /**
   * Records a key the caller knows is absent (the filter in front said "certainly new"), without
   * looking it up: the cheap path that keeps the exact tier off the disk for new keys.
   */
  void addNew(long hi, long lo, byte[] key);

  /** True when the key was recorded (pending keys included). */
  boolean contains(long hi, long lo, byte[] key);

  /** Keys recorded, pending ones included. */
  long size();

  /** Where the keys live, for reports: {@code "memory"} or {@code "rocksdb"}. */
  String kind();

  /**
   * Moves the keys added since the last call into {@code sink} and forgets them as pending (they
   * stay recorded). A durable store writes them with the checkpoint.
   */
  void drainPending(PendingKeys sink);

  @Override
  void close();
}
