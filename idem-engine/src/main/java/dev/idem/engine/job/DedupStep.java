package dev.idem.engine.job;

/**
 * The dedup job's named crash points ({@link dev.idem.engine.run.CrashPoints}): the steps of state
 * creation, resume and checkpoint (docs/DESIGN.md, section 3.4), in the order a job reaches them.
 * DedupJobProtocolTest kills a job at each; {@code -Didem.crash-at=STEP} halts the real command
 * there.
 */
enum DedupStep {
  /** A new state: {@code store/} created, no manifest yet. */
  STORE_CREATED,
  /** A new state: {@code MANIFEST.json} written. */
  MANIFEST_WRITTEN,
  /** A resume: the tiers restored, snapshots the checkpoint does not name not yet deleted. */
  TIERS_RESTORED,
  /** The outputs opened, cut back to the checkpoint; nothing read yet. */
  OUTPUTS_CUT,
  /** A record handled (its output, if any, accepted) and its position noted. */
  RECORD_HANDLED,
  /** Checkpoint step 1: every output flushed and fsynced. */
  OUTPUTS_SYNCED,
  /** Step 3: {@code filter-c.snap} written (renamed into place), before the batch. */
  FILTER_SNAPSHOT_WRITTEN,
  /**
   * Step 3: {@code delta-c.snap} written (renamed into place) instead of a full snapshot, and the
   * set switched to it, before the batch.
   */
  DELTA_SNAPSHOT_WRITTEN,
  /** Step 3: {@code exact-c.snap} written too, before the batch. */
  EXACT_SNAPSHOT_WRITTEN,
  /** Step 3: the judge's changes (journal, seen, windows) are in the batch, not written. */
  JOURNAL_BATCHED,
  /** Step 4: the batch with the checkpoint record is written; old snapshots still there. */
  COMMITTED,
  /** Step 5: old snapshots deleted; the checkpoint is done, the next record not yet read. */
  CHECKPOINT_DONE
}
