/**
 * Exact tiers: the in-memory fingerprint set ({@code MemoryExactTier}) and RocksDB ({@code
 * RocksDbExactTier} over {@code StateStore}, which also holds a job's journal, checkpoint record
 * and window buckets). Depends on idem-core only.
 */
package dev.idem.engine.store;
