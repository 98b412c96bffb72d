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

  /** The journaled keys at which snapshots of {@code snapshotBytes} are due. */
  public static long keysPerSnapshot(long snapshotBytes) {
    long perKey = 4 * REPLAY_BYTES_PER_KEY;
    return (snapshotBytes + perKey - 1) / perKey;
  }
}
