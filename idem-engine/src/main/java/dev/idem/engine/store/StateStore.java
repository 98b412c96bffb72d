package dev.idem.engine.store;

import dev.idem.core.Fingerprint;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.rocksdb.BlockBasedTableConfig;
import org.rocksdb.BloomFilter;
import org.rocksdb.ColumnFamilyDescriptor;
import org.rocksdb.ColumnFamilyHandle;
import org.rocksdb.ColumnFamilyOptions;
import org.rocksdb.DBOptions;
import org.rocksdb.FlushOptions;
import org.rocksdb.IndexType;
import org.rocksdb.LRUCache;
import org.rocksdb.ReadOptions;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;
import org.rocksdb.RocksIterator;
import org.rocksdb.WriteBatch;
import org.rocksdb.WriteOptions;

/**
 * The durable state of a dedup job in one embedded RocksDB, in four column families:
 *
 * <ul>
 *   <li>{@code seen}: every key kept, at its last checkpoint. Fingerprint mode: the 16-byte
 *       big-endian fingerprint, empty value. Full-key mode: the key's bytes, with its fingerprint
 *       as the value (so the filter can be rebuilt without rehashing).
 *   <li>{@code journal}: per checkpoint sequence number (8 bytes, big-endian), the fingerprints
 *       kept in it, packed; what must be replayed into a filter snapshot taken earlier.
 *   <li>{@code meta}: named small values, such as the last checkpoint.
 *   <li>{@code windows}: a windowed job's open time buckets: (bucket, fingerprint) → event time.
 * </ul>
 *
 * <p>A {@link #commit()} writes the keys of one checkpoint, its journal entry, its window changes
 * and its metadata in a single synced write batch: after a crash, either all of it is there or
 * none. Tuned for point lookups: a Bloom filter per table file, whole-key filtering, and an LRU
 * block cache sized by the caller.
 *
 * <p>Why it is long: it is the one owner of a RocksDB database: its options, column families,
 * commit batches, meta keys and reads, and the order in which the native handles are closed.
 */
public final class StateStore implements AutoCloseable {

  static {
    RocksDB.loadLibrary();
  }

  private static final byte[] SEEN = "seen".getBytes(java.nio.charset.StandardCharsets.US_ASCII);
  private static final byte[] JOURNAL =
      "journal".getBytes(java.nio.charset.StandardCharsets.US_ASCII);
  private static final byte[] META = "meta".getBytes(java.nio.charset.StandardCharsets.US_ASCII);
  private static final byte[] WINDOWS =
      "windows".getBytes(java.nio.charset.StandardCharsets.US_ASCII);

  private final RocksDB db;
  private final DBOptions dbOptions;
  private final ColumnFamilyOptions seenOptions;
  private final ColumnFamilyOptions otherOptions;
  private final LRUCache cache;
  private final BloomFilter bloom;
  private final List<ColumnFamilyHandle> handles;
  private final ColumnFamilyHandle seen;
  private final ColumnFamilyHandle journal;
  private final ColumnFamilyHandle meta;
  private final ColumnFamilyHandle windows;

  /** The write-ahead log replayed when a crashed store is opened stays about this size. */
  static final long MAX_WAL_BYTES = 16L << 20;

  private final WriteOptions syncWrites = new WriteOptions().setSync(true);
  private final WriteOptions plainWrites = new WriteOptions();
  private final ReadOptions reads = new ReadOptions();
  private final Path dir;
  private final boolean fullKeys;
  private final boolean readOnly;
  private final byte[] fingerprintBuffer = new byte[16];
  private final byte[] valueBuffer = new byte[16];

  /** Stores opened in this process, read-only ones too: an open costs (it may replay a log). */
  private static final AtomicLong OPENED = new AtomicLong();

  /** How many stores this process opened, read-only ones too (for tests that count them). */
  public static long opened() {
    return OPENED.get();
  }

  /** How a store is opened. */
  private enum Access {
    CREATE,
    EXISTING,
    READ_ONLY
  }

  private StateStore(Path dir, long cacheBytes, boolean fullKeys, Access access)
      throws IOException {
    this.dir = dir;
    this.fullKeys = fullKeys;
    this.readOnly = access == Access.READ_ONLY;
    if (access == Access.EXISTING && !Files.isRegularFile(dir.resolve("CURRENT"))) {
      throw damaged(dir, Files.isDirectory(dir) ? "its CURRENT file is missing" : "it is missing");
    }
    try {
      if (access == Access.CREATE) {
        Files.createDirectories(dir);
      }
      cache = new LRUCache(Math.max(8L << 20, cacheBytes));
      bloom = new BloomFilter(10);
      // Partitioned filters and a two-level index: a point lookup loads one 4 KiB filter
      // partition and one index partition, not the whole filter of a 64 MiB file (~1.7 MB
      // for 14 M keys), which with a small cache was evicted and reloaded on every lookup
      // (exact-tier confirmations fell from ~180 k to ~10 k/s once `seen` left L0). The top
      // levels stay pinned, the partitions compete for the cache with high priority.
      BlockBasedTableConfig table =
          new BlockBasedTableConfig()
              .setBlockCache(cache)
              .setFilterPolicy(bloom)
              .setWholeKeyFiltering(true)
              .setIndexType(IndexType.kTwoLevelIndexSearch)
              .setPartitionFilters(true)
              .setMetadataBlockSize(4096)
              .setCacheIndexAndFilterBlocks(true)
              .setCacheIndexAndFilterBlocksWithHighPriority(true)
              .setPinTopLevelIndexAndFilter(true)
              .setPinL0FilterAndIndexBlocksInCache(true)
              .setBlockSize(4096);
      seenOptions =
          new ColumnFamilyOptions()
              .setTableFormatConfig(table)
              .setOptimizeFiltersForHits(false)
              .setLevelCompactionDynamicLevelBytes(true);
      otherOptions = new ColumnFamilyOptions();
      // A small column family (the journal, meta) keeps every WAL file alive until it is
      // flushed, and an open after a crash replays them all. The cap makes RocksDB flush the
      // column families that pin old WAL files (docs/BENCHMARKS.md, Part A after the WAL cap).
      dbOptions =
          new DBOptions()
              .setCreateIfMissing(access == Access.CREATE)
              .setCreateMissingColumnFamilies(true)
              .setMaxBackgroundJobs(2)
              .setKeepLogFileNum(3)
              .setMaxTotalWalSize(MAX_WAL_BYTES);
      List<ColumnFamilyDescriptor> descriptors =
          List.of(
              new ColumnFamilyDescriptor(RocksDB.DEFAULT_COLUMN_FAMILY, otherOptions),
              new ColumnFamilyDescriptor(SEEN, seenOptions),
              new ColumnFamilyDescriptor(JOURNAL, otherOptions),
              new ColumnFamilyDescriptor(META, otherOptions),
              new ColumnFamilyDescriptor(WINDOWS, otherOptions));
      handles = new ArrayList<>();
      db =
          readOnly
              ? RocksDB.openReadOnly(dbOptions, dir.toString(), descriptors, handles)
              : RocksDB.open(dbOptions, dir.toString(), descriptors, handles);
      seen = handles.get(1);
      journal = handles.get(2);
      meta = handles.get(3);
      windows = handles.get(4);
      OPENED.incrementAndGet();
    } catch (RocksDBException e) {
      if (access == Access.EXISTING
          && e.getStatus() != null
          && e.getStatus().getCode() == org.rocksdb.Status.Code.Corruption) {
        throw damaged(dir, "RocksDB: " + e.getMessage());
      }
      throw new IOException(dir + ": cannot open the RocksDB state: " + e.getMessage(), e);
    }
  }

  private static IOException damaged(Path dir, String why) {
    return new IOException(
        dir
            + " is damaged ("
            + why
            + "): the job's progress cannot be read, "
            + "and starting over silently could repeat or lose output. Restore it from a backup, or "
            + "start over with a new --state directory (the output is then rewritten from the start)");
  }

  /**
   * Opens (creating if needed) the store in {@code dir}.
   *
   * @param cacheBytes the block cache size: what keeps lookups of present keys off the disk
   * @param fullKeys whether {@code seen} holds full keys rather than fingerprints
   */
  public static StateStore open(Path dir, long cacheBytes, boolean fullKeys) throws IOException {
    return new StateStore(dir, cacheBytes, fullKeys, Access.CREATE);
  }

  /**
   * Opens the store in {@code dir}, which must exist: for a state whose manifest says it has one,
   * where a new, empty store would silently start the job over.
   *
   * @throws IOException naming {@code dir} when the store is missing or damaged
   */
  public static StateStore openExisting(Path dir, long cacheBytes, boolean fullKeys)
      throws IOException {
    return new StateStore(dir, cacheBytes, fullKeys, Access.EXISTING);
  }

  /** Opens an existing store for reading only; works while a job writes to it. */
  public static StateStore openReadOnly(Path dir, boolean fullKeys) throws IOException {
    if (!Files.isDirectory(dir)) {
      throw new IOException(dir + ": no RocksDB store here");
    }
    return new StateStore(dir, 8L << 20, fullKeys, Access.READ_ONLY);
  }

  /** True when {@code seen} holds the key. */
  public boolean seenContains(long hi, long lo, byte[] key) {
    try {
      return db.get(seen, reads, seenKey(hi, lo, key), valueBuffer) != RocksDB.NOT_FOUND;
    } catch (RocksDBException e) {
      throw failed("read", e);
    }
  }

  /**
   * For each of {@code keys} ({@code seen}'s own: 16-byte fingerprints, or full keys), whether
   * {@code seen} holds it: one multi-get, which pays the native call and the walk through the
   * levels once for the lot rather than once a key.
   */
  public boolean[] seenContains(List<byte[]> keys) {
    boolean[] found = new boolean[keys.size()];
    if (keys.isEmpty()) {
      return found;
    }
    try {
      List<byte[]> values = db.multiGetAsList(reads, Collections.nCopies(keys.size(), seen), keys);
      for (int i = 0; i < found.length; i++) {
        found[i] = values.get(i) != null;
      }
      return found;
    } catch (RocksDBException e) {
      throw failed("read", e);
    }
  }

  private byte[] seenKey(long hi, long lo, byte[] key) {
    if (fullKeys) {
      return key;
    }
    Fingerprint.write(hi, lo, fingerprintBuffer, 0);
    return fingerprintBuffer;
  }

  /** A new, empty write batch: the changes of one checkpoint, written atomically. */
  public Commit commit() {
    return new Commit();
  }

  /**
   * The changes of one checkpoint, applied together by {@link #write}: after a crash, either all of
   * them are in the store or none.
   */
  public final class Commit implements AutoCloseable {
    private WriteBatch batch = new WriteBatch();

    private Commit() {}

    /** Deletes the journal entries before {@code sequence} (a snapshot covers them now). */
    public Commit dropJournalBefore(long sequence) {
      try {
        batch.deleteRange(journal, sequenceKey(0), sequenceKey(sequence));
      } catch (RocksDBException e) {
        throw failed("write", e);
      }
      return this;
    }

    /** Journals {@code keys}' fingerprints, packed, under checkpoint {@code sequence}. */
    public Commit journal(long sequence, PendingKeys keys) {
      if (keys.size() == 0) {
        return this;
      }
      byte[] packed = new byte[16 * keys.size()];
      for (int i = 0; i < keys.size(); i++) {
        Fingerprint.write(keys.hi(i), keys.lo(i), packed, 16 * i);
      }
      return put(journal, sequenceKey(sequence), packed);
    }

    /** Adds {@code keys} to {@code seen}. */
    public Commit seen(PendingKeys keys) {
      // in key order: each insert lands next to the last in the memtable's skip list, which is
      // several times faster than random order
      int[] order = FingerprintOrder.of(keys);
      if (keys.size() > 0 && batch.count() == 0) {
        // the commit's first changes: the whole batch so far is these puts, encoded in one piece
        WriteBatch encoded = new WriteBatch(SeenBatch.encode(seen.getID(), keys, order, fullKeys));
        batch.close();
        batch = encoded;
        return this;
      }
      for (int i : order) {
        byte[] fp = new byte[16];
        Fingerprint.write(keys.hi(i), keys.lo(i), fp, 0);
        if (fullKeys) {
          put(seen, keys.key(i), fp);
        } else {
          put(seen, fp, EMPTY);
        }
      }
      return this;
    }

    /** Sets meta value {@code name}. */
    public Commit meta(String name, byte[] value) {
      return put(meta, name.getBytes(java.nio.charset.StandardCharsets.UTF_8), value);
    }

    /** Records a key kept in time bucket {@code bucket} of a windowed job. */
    public Commit windowKept(long bucket, long hi, long lo, long time) {
      byte[] key =
          ByteBuffer.allocate(24).putLong(bucket ^ Long.MIN_VALUE).putLong(hi).putLong(lo).array();
      return put(windows, key, ByteBuffer.allocate(8).putLong(time).array());
    }

    /** Forgets every key of time bucket {@code bucket}. */
    public Commit windowDropped(long bucket) {
      try {
        batch.deleteRange(windows, bucketKey(bucket), bucketKey(bucket + 1));
      } catch (RocksDBException e) {
        throw failed("write", e);
      }
      return this;
    }

    private Commit put(ColumnFamilyHandle cf, byte[] key, byte[] value) {
      try {
        batch.put(cf, key, value);
      } catch (RocksDBException e) {
        throw failed("write", e);
      }
      return this;
    }

    /** Applies every change at once; {@code sync} waits for the disk (checkpoints do). */
    public void write(boolean sync) {
      try {
        db.write(sync ? syncWrites : plainWrites, batch);
      } catch (RocksDBException e) {
        throw failed("write", e);
      }
    }

    @Override
    public void close() {
      batch.close();
    }
  }

  /** The first key of a bucket: buckets sort by time, negative ones first. */
  private static byte[] bucketKey(long bucket) {
    return ByteBuffer.allocate(8).putLong(bucket ^ Long.MIN_VALUE).array();
  }

  /** Receives the entries of a windowed job's open buckets. */
  @FunctionalInterface
  public interface WindowEntryConsumer {
    void accept(long bucket, long hi, long lo, long time);
  }

  /** Calls {@code action} with every kept key of every open time bucket, in bucket order. */
  public void forEachWindowEntry(WindowEntryConsumer action) {
    try (RocksIterator it = db.newIterator(windows)) {
      for (it.seekToFirst(); it.isValid(); it.next()) {
        ByteBuffer k = ByteBuffer.wrap(it.key());
        long bucket = k.getLong() ^ Long.MIN_VALUE;
        action.accept(bucket, k.getLong(), k.getLong(), ByteBuffer.wrap(it.value()).getLong());
      }
    }
  }

  /**
   * A failed read or write, naming the store: unchecked, since lookups happen where no I/O is
   * declared, but an {@link UncheckedIOException}, so callers report it as the I/O problem it is (a
   * full disk, most often) rather than as a bug.
   */
  private UncheckedIOException failed(String what, RocksDBException e) {
    return new UncheckedIOException(
        new IOException(dir + ": RocksDB " + what + " failed: " + e.getMessage(), e));
  }

  private static final byte[] EMPTY = new byte[0];

  /** The meta value named {@code name}, or {@code null}. */
  public byte[] meta(String name) {
    try {
      return db.get(meta, name.getBytes(java.nio.charset.StandardCharsets.UTF_8));
    } catch (RocksDBException e) {
      throw failed("read", e);
    }
  }

  /** Receives fingerprints (and, in full-key mode, keys) from a scan. */
  @FunctionalInterface
  public interface KeyConsumer {
    void accept(long hi, long lo, byte[] key);
  }

  /** Calls {@code action} with every key in {@code seen}. */
  public void forEachSeen(KeyConsumer action) {
    try (RocksIterator it = db.newIterator(seen)) {
      for (it.seekToFirst(); it.isValid(); it.next()) {
        ByteBuffer fp = ByteBuffer.wrap(fullKeys ? it.value() : it.key());
        action.accept(fp.getLong(), fp.getLong(), fullKeys ? it.key() : null);
      }
    }
  }

  /**
   * Calls {@code action} with every fingerprint journaled by checkpoints {@code from} to {@code
   * to}, inclusive, in order.
   */
  public void forEachJournaled(long from, long to, KeyConsumer action) {
    forEachJournaledBatch(
        from,
        to,
        (pairs, count) -> {
          for (int i = 0; i < count; i++) {
            action.accept(pairs[2 * i], pairs[2 * i + 1], null);
          }
        });
  }

  /** Receives the keys of one journal entry as (hi, lo) pairs; the array is reused. */
  public interface KeyBatchConsumer {
    void accept(long[] pairs, int count);
  }

  /**
   * {@link #forEachJournaled} a checkpoint's keys at a time, for callers that look a batch of keys
   * up together.
   */
  public void forEachJournaledBatch(long from, long to, KeyBatchConsumer action) {
    long[] pairs = new long[0];
    try (RocksIterator it = db.newIterator(journal)) {
      for (it.seek(sequenceKey(from)); it.isValid(); it.next()) {
        if (ByteBuffer.wrap(it.key()).getLong() > to) {
          break;
        }
        byte[] value = it.value();
        int count = value.length / 16;
        if (pairs.length < 2 * count) {
          pairs = new long[2 * count];
        }
        ByteBuffer.wrap(value, 0, 16 * count).asLongBuffer().get(pairs, 0, 2 * count);
        action.accept(pairs, count);
      }
    }
  }

  /** The approximate number of keys in {@code seen} (RocksDB's estimate). */
  public long estimatedSeenKeys() {
    try {
      return db.getLongProperty(seen, "rocksdb.estimate-num-keys");
    } catch (RocksDBException e) {
      return -1;
    }
  }

  /** Bytes of the store's live files on disk (RocksDB's figure). */
  public long liveFileBytes() {
    try {
      return db.getLongProperty("rocksdb.live-sst-files-size");
    } catch (RocksDBException e) {
      return -1;
    }
  }

  private static byte[] sequenceKey(long sequence) {
    return ByteBuffer.allocate(8).putLong(sequence).array();
  }

  /**
   * Writes the memtables out to table files, for a store closed at the end of its work: the next
   * open then has no write-ahead log to replay into memtables and write out itself, which RocksDB
   * does before the open returns. Everything is in the synced log already, so a failure here only
   * leaves that work to the next open.
   */
  public void flushForReopen() {
    if (readOnly) {
      return;
    }
    try (FlushOptions o = new FlushOptions().setWaitForFlush(true)) {
      db.flush(o, handles);
    } catch (RocksDBException e) {
      // the next open replays the log, as after a crash
    }
  }

  @Override
  public void close() {
    try {
      if (!readOnly) {
        db.syncWal();
      }
    } catch (RocksDBException e) {
      // closing anyway; every checkpoint was already synced
    }
    // RocksDB's close methods free native memory and do not fail; the order is RocksDB's
    for (ColumnFamilyHandle h : handles) {
      h.close();
    }
    db.close();
    dbOptions.close();
    seenOptions.close();
    otherOptions.close();
    cache.close();
    bloom.close();
    syncWrites.close();
    plainWrites.close();
    reads.close();
  }
}
