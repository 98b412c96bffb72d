/**
 * Exact tiers: the in-memory fingerprint set ({@code MemoryStore}) and RocksDB ({@code
 * RocksDbStore} over {@code StateStore}, which also holds a job's journal, checkpoint record and
 * window buckets). Depends on idem-core only.
 */
package dev.idem.engine.store;
