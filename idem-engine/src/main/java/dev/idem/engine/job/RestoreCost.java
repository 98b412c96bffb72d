package dev.idem.engine.job;

/**
 * What bringing the tiers back on a resume cost, split the way the cost grows: loading the newest
 * snapshot grows with the state, replaying the journal after it with the keys kept since that
 * snapshot.
 *
 * @param loadMillis time to load the tiers without the replay: read or map the snapshot into the
 *     filter or exact set, or create them empty, or open the exact store
 * @param journalReplayed keys replayed from the journal after the snapshot
 * @param replayMillis time to replay them (or to rebuild a damaged filter from the exact store)
 * @param filterRebuilt whether the filter had to be rebuilt from the exact store
 */
public record RestoreCost(
    long loadMillis, long journalReplayed, long replayMillis, boolean filterRebuilt) {

  /** Nothing restored: a new job, or one without state. */
  public static final RestoreCost NONE = new RestoreCost(0, 0, 0, false);
}
