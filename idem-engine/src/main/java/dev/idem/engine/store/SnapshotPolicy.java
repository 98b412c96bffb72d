package dev.idem.engine.store;

/**
 * When a durable state writes new snapshots rather than journal more: a reopen reads the snapshots
 * and replays the journal after them, so a snapshot is due once replaying the journal since the
 * last one would cost a quarter of reading the snapshots. Reopen time then stays within 1.25
 * snapshot reads, however long the state has lived.
 */
public final class SnapshotPolicy {

  /**
   * Replaying one journaled key on reopen costs about as much as reading this many bytes of a
   * snapshot: a random insert into the filter (and set) against a sequential read.
   */
  static final long REPLAY_BYTES_PER_KEY = 16;

  private SnapshotPolicy() {}

  /**
   * Whether to write new snapshots now.
   *
   * @param journaledSinceSnapshot keys journaled since the last snapshot, this commit's included
   * @param snapshotBytes what the snapshots would hold (filter bits / 8, plus an exact set's)
   */
  public static boolean due(long journaledSinceSnapshot, long snapshotBytes) {
    return journaledSinceSnapshot >= keysPerSnapshot(snapshotBytes);
  }

  /**
   * The most keys journaled after which an exact set alone writes a snapshot, whatever its size:
   * about 16 MiB of journal, which a resume replays into the heap overlay in a fraction of a second
   * (the system property {@code idem.snapshot-keys} sets another number; tests use a few dozen).
   */
  public static final long SNAPSHOT_KEYS = 1 << 20;

  /** What an exact set alone writes at a checkpoint ({@link #forSetAlone}). */
  public enum Write {
    /** Nothing: the journal since the last snapshot is short enough. */
    NONE,
    /** The whole set: the new base, which ends the deltas after the old one. */
    FULL,
    /** The keys since the newest snapshot, as one more delta level over the base. */
    DELTA
  }

  /**
   * The most times {@link #snapshotKeys()} the journal after the newest snapshot of an exact set
   * alone may hold: deltas grow with the keys since the base, but never so large that a resume
   * replays more than this.
   */
  static final long MAX_TAIL_SNAPSHOTS = 4;

  /**
   * The most delta levels over one base: a resumed set probes each until it is back in the heap.
   */
  public static final int MAX_DELTA_LEVELS = 16;

  /**
   * What an exact set alone (a striped set a resume maps in place) writes now, so that a resume
   * replays a journal bounded in keys, not a share of the state: a snapshot is due once the keys
   * journaled since the newest one reach {@link #snapshotKeys()} (or, for a small set, a quarter of
   * reading it, as {@link #due}), or a quarter of the deltas on disk, but never more than {@link
   * #MAX_TAIL_SNAPSHOTS} times {@link #snapshotKeys()}: the journal a resume replays is bounded
   * whatever the history. Deltas are never rewritten: each holds the keys since the snapshot before
   * it. It is a full snapshot while there is no base, and once the keys since the base reach the
   * base's own count (so that rewriting the base costs at most twice its keys) or the deltas reach
   * {@link #MAX_DELTA_LEVELS}; a delta otherwise.
   *
   * @param journaledSinceSnapshot keys journaled since the newest snapshot, full or delta
   * @param setBytes the set's bytes as the rule weighs them
   * @param baseKeys keys in the full snapshot on disk (0: none a delta could go with)
   * @param deltaKeysOnDisk keys in the deltas on disk since it
   * @param deltaLevels the deltas on disk since it
   */
  public static Write forSetAlone(
      long journaledSinceSnapshot,
      long setBytes,
      long baseKeys,
      long deltaKeysOnDisk,
      int deltaLevels) {
    if (!tailDue(journaledSinceSnapshot, setBytes, deltaKeysOnDisk)) {
      return Write.NONE;
    }
    return baseKeys == 0
            || deltaKeysOnDisk + journaledSinceSnapshot >= baseKeys
            || deltaLevels >= MAX_DELTA_LEVELS
        ? Write.FULL
        : Write.DELTA;
  }

  /**
   * Whether the journal after the newest snapshot of an exact set alone is long enough that {@link
   * #forSetAlone} writes one (a full snapshot or a delta).
   */
  public static boolean tailDue(long journaledSinceSnapshot, long setBytes, long deltaKeysOnDisk) {
    return journaledSinceSnapshot > 0
        && journaledSinceSnapshot >= tailKeys(setBytes, deltaKeysOnDisk);
  }

  /**
   * The keys journaled after the newest snapshot at which an exact set alone of {@code setBytes},
   * with a delta of {@code deltaKeysOnDisk} on disk, writes the next one: at most {@link
   * #MAX_TAIL_SNAPSHOTS} times {@link #snapshotKeys()}.
   */
  public static long tailKeys(long setBytes, long deltaKeysOnDisk) {
    long keys = snapshotKeys();
    return Math.max(
        Math.min(keys, keysPerSnapshot(setBytes)),
        Math.min(deltaKeysOnDisk / 4, MAX_TAIL_SNAPSHOTS * keys));
  }

  /** {@link #SNAPSHOT_KEYS}, or the system property {@code idem.snapshot-keys}. */
  public static long snapshotKeys() {
    return Math.max(1, Long.getLong("idem.snapshot-keys", SNAPSHOT_KEYS));
  }

  /** The journaled keys at which snapshots of {@code snapshotBytes} are due. */
  public static long keysPerSnapshot(long snapshotBytes) {
    long perKey = 4 * REPLAY_BYTES_PER_KEY;
    return (snapshotBytes + perKey - 1) / perKey;
  }
}
