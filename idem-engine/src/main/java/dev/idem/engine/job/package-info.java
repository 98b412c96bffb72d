/**
 * The resumable dedup job: {@code DedupJob} reads batches, asks a {@code Judge} (tiered, windowed,
 * shared or seen-before) for each record's verdict, writes the survivors and checkpoints with the
 * exactly-once protocol of docs/DESIGN.md, section 3. Depends on {@code records}, {@code state},
 * {@code store}, {@code window} and {@code shard}'s key ownership; nothing depends on it but the
 * CLI.
 */
package dev.idem.engine.job;
