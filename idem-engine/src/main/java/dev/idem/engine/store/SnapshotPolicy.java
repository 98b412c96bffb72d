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
    /** The whole set, which becomes the base the set is then used from. */
    FULL,
    /** The keys since the base (its delta and overlay): cheaper, the base is kept. */
    DELTA
  }

  /**
   * The most times {@link #snapshotKeys()} the journal after the newest snapshot of an exact set
   * alone may hold: a large delta is rewritten less often, but never so seldom that a resume
   * replays more than this.
   */
  static final long MAX_TAIL_SNAPSHOTS = 4;

  /**
   * What an exact set alone (a striped set used in place from its snapshots) writes now, so that a
   * resume replays a journal bounded in keys, not a share of the state: a snapshot is due once the
   * keys journaled since the last one reach {@link #snapshotKeys()} (or, for a small set, a quarter
   * of reading it, as {@link #due}), or a quarter of the delta already on disk, which keeps the
   * cost of rewriting a growing delta within five times its keys, but never more than {@link
   * #MAX_TAIL_SNAPSHOTS} times {@link #snapshotKeys()}: the journal a resume replays is bounded
   * whatever the history. It is a full snapshot while there is no base, and once the keys since the
   * base reach a quarter of the base (so that rewriting the base costs at most five times its keys
   * too); a delta otherwise.
   *
   * @param journaledSinceSnapshot keys journaled since the last snapshot, full or delta
   * @param setBytes the set's table bytes
   * @param baseKeys keys in the mapped base (0: none)
   * @param keysSinceBase keys added since the base (delta and overlay)
   * @param deltaKeysOnDisk keys in the delta on disk (0: none)
   */
  public static Write forSetAlone(
      long journaledSinceSnapshot,
      long setBytes,
      long baseKeys,
      long keysSinceBase,
      long deltaKeysOnDisk) {
    if (!tailDue(journaledSinceSnapshot, setBytes, deltaKeysOnDisk)) {
      return Write.NONE;
    }
    return baseKeys == 0 || 4 * keysSinceBase >= baseKeys ? Write.FULL : Write.DELTA;
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
