package dev.idem.engine.job;

/**
 * What bringing the tiers back on a resume cost, split the way the cost grows: loading the newest
 * snapshot grows with the state unless it is mapped in place, replaying the journal after it with
 * the keys kept since that snapshot (or its delta); opening the state and the store, and checking
 * the inputs, with neither.
 *
 * @param loadMillis time to load the tiers without the replay: map the snapshot (and delta) in
 *     place, or read it into the filter or exact set, or create them empty, or open the exact store
 * @param journalReplayed keys replayed from the journal after the snapshot
 * @param replayMillis time to replay them (or to rebuild a damaged filter from the exact store)
 * @param filterRebuilt whether the filter had to be rebuilt from the exact store
 * @param stateOpenMillis time to open the state directory (its lock) and read and check the
 *     manifest
 * @param storeOpenMillis time to open the RocksDB store and read the last checkpoint
 * @param inputCheckMillis time to check the inputs against what the job read of them; it runs
 *     beside the restore of the tiers, so it adds to the restart only where it is the longer
 * @param mappedInPlace whether the exact set (or filter) is used in place from a map whose pages
 *     are verified as they are first read, rather than read and verified whole
 * @param deltaSequence the checkpoint of the delta snapshot mapped (0: none)
 */
public record RestoreCost(
    long loadMillis,
    long journalReplayed,
    long replayMillis,
    boolean filterRebuilt,
    long stateOpenMillis,
    long storeOpenMillis,
    long inputCheckMillis,
    boolean mappedInPlace,
    long deltaSequence) {

  /** Nothing restored: a new job, or one without state. */
  public static final RestoreCost NONE = new RestoreCost(0, 0, 0, false);

  /** The cost of the tiers alone. */
  public RestoreCost(
      long loadMillis, long journalReplayed, long replayMillis, boolean filterRebuilt) {
    this(loadMillis, journalReplayed, replayMillis, filterRebuilt, 0, 0, 0, false, 0);
  }

  /** This cost with the times of opening the state and the store and of the input check. */
  RestoreCost withOpening(long stateOpen, long storeOpen, long inputCheck) {
    return new RestoreCost(
        loadMillis,
        journalReplayed,
        replayMillis,
        filterRebuilt,
        stateOpen,
        storeOpen,
        inputCheck,
        mappedInPlace,
        deltaSequence);
  }
}
