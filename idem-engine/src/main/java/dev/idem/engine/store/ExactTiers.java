package dev.idem.engine.store;

import java.io.IOException;
import java.nio.file.Path;

/**
 * The exact tiers a deduplicator without a job's checkpoints uses, built one way for the library
 * ({@code Deduplicator.Builder}) and for a dedup job without a state directory.
 */
public final class ExactTiers {

  /**
   * Keys a RocksDB tier holds in memory before it writes them itself: bounds that memory while
   * keeping writes in large sorted batches.
   */
  static final int ROCKSDB_FLUSH_EVERY = 100_000;

  private ExactTiers() {}

  /** An in-memory exact set sized for {@code expectedKeys}. */
  public static ExactTier inMemory(long expectedKeys, boolean fullKeys) {
    return MemoryExactTier.create(expectedKeys, fullKeys, false);
  }

  /**
   * An exact tier in a RocksDB database in {@code directory} (created if needed), with a block
   * cache of {@code cacheBytes}; closing the tier closes the database.
   *
   * @throws IOException naming the directory when the database cannot be opened
   */
  public static ExactTier inRocksDb(Path directory, long cacheBytes, boolean fullKeys)
      throws IOException {
    return RocksDbExactTier.owning(
        StateStore.open(directory, cacheBytes, fullKeys), fullKeys, ROCKSDB_FLUSH_EVERY);
  }
}
