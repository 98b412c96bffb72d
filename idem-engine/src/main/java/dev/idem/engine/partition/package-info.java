/**
 * The partitioned method of exact dedup, for exact sets larger than the memory a job may use:
 * {@code PartitionedPlan} (the two passes that work out every verdict before a record is written),
 * {@code PlanProgress} (how far they got, in {@code plan/progress.json}), {@code PartitionFiles}
 * (the fingerprint files), {@code PartitionJudge} (one file judged in a bounded set) and {@code
 * DuplicateBits} (the verdicts, checksummed). The dedup job reads the verdicts through its {@code
 * PlannedJudge}. Not exported: this is how {@code dedup --memory} works, not API.
 */
package dev.idem.engine.partition;
