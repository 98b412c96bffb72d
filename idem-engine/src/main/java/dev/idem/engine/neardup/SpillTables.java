package dev.idem.engine.neardup;

import dev.idem.engine.store.RocksDbPresence;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Path;
import org.rocksdb.BlockBasedTableConfig;
import org.rocksdb.BloomFilter;
import org.rocksdb.CompressionType;
import org.rocksdb.LRUCache;
import org.rocksdb.Options;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;
import org.rocksdb.WriteOptions;

/**
 * Where judging keeps what no longer fits its memory budget: the band buckets, signatures, shingle
 * sets and first-copy fingerprints of the documents after the budget ran out ({@link
 * JudgingMemory}), in one RocksDB in the job's scratch directory. Nothing here is read after the
 * job, so the write-ahead log is off: a killed job judges again from the start, as it does with
 * everything in memory.
 *
 * <p>Keys start with a byte that says what they hold, then big-endian fields:
 *
 * <ul>
 *   <li>{@code 'B'} band (short), band key (long): the documents filed under it, ints, oldest
 *       first;
 *   <li>{@code 'S'} signature row (int): its components' upper halves, ints;
 *   <li>{@code 'H'} signature row (int): its shingle hashes, longs (with {@code --verify});
 *   <li>{@code 'F'} fingerprint (two longs): the document position of its first copy, an int.
 * </ul>
 */
final class SpillTables implements AutoCloseable {

  private static final long CACHE_BYTES = 64L << 20;
  private static final long MEMTABLE_BYTES = 64L << 20;

  private final Path dir;
  private final LRUCache cache;
  private final Options options;
  private final WriteOptions writes;
  private final RocksDB db;

  private SpillTables(Path dir, LRUCache cache, Options options, WriteOptions writes, RocksDB db) {
    this.dir = dir;
    this.cache = cache;
    this.options = options;
    this.writes = writes;
    this.db = db;
  }

  /** Opens empty tables in {@code dir}, which must not exist yet. */
  static SpillTables open(Path dir) throws IOException {
    RocksDbPresence.require("near-dup's tables beyond --memory");
    RocksDB.loadLibrary();
    LRUCache cache = new LRUCache(CACHE_BYTES);
    Options options =
        new Options()
            .setCreateIfMissing(true)
            .setWriteBufferSize(MEMTABLE_BYTES)
            .setMaxWriteBufferNumber(3)
            .setMaxBackgroundJobs(2)
            .setCompressionType(CompressionType.LZ4_COMPRESSION)
            .setTableFormatConfig(
                new BlockBasedTableConfig()
                    .setBlockCache(cache)
                    .setFilterPolicy(new BloomFilter(10))
                    .setWholeKeyFiltering(true));
    WriteOptions writes = new WriteOptions().setDisableWAL(true);
    try {
      return new SpillTables(dir, cache, options, writes, RocksDB.open(options, dir.toString()));
    } catch (RocksDBException e) {
      writes.close();
      options.close();
      cache.close();
      throw new IOException("cannot open near-dup's tables in " + dir + ": " + e.getMessage(), e);
    }
  }

  /** The documents filed under {@code key} in {@code band}, oldest first, or {@code null}. */
  byte[] bucket(int band, long key) {
    return get(bucketKey(band, key));
  }

  /** Files {@code doc} under {@code key} in {@code band}, after {@code bucket}'s documents. */
  void addToBucket(int band, long key, byte[] bucket, int doc) {
    int n = bucket == null ? 0 : bucket.length;
    byte[] value = new byte[n + 4];
    if (n > 0) {
      System.arraycopy(bucket, 0, value, 0, n);
    }
    ByteBuffer.wrap(value).putInt(n, doc);
    put(bucketKey(band, key), value);
  }

  void putSignature(int row, int[] upperHalves) {
    ByteBuffer b = ByteBuffer.allocate(4 * upperHalves.length);
    b.asIntBuffer().put(upperHalves);
    put(rowKey('S', row), b.array());
  }

  /** Fills {@code into} with row {@code row}'s signature. */
  void signature(int row, int[] into) {
    ByteBuffer.wrap(required(rowKey('S', row))).asIntBuffer().get(into);
  }

  void putShingles(int row, long[] shingles) {
    ByteBuffer b = ByteBuffer.allocate(8 * shingles.length);
    b.asLongBuffer().put(shingles);
    put(rowKey('H', row), b.array());
  }

  long[] shingles(int row) {
    byte[] v = required(rowKey('H', row));
    long[] s = new long[v.length / 8];
    ByteBuffer.wrap(v).asLongBuffer().get(s);
    return s;
  }

  /**
   * The first copy of a fingerprint, or -1 after filing {@code doc} as its first copy.
   *
   * @param hi the fingerprint's first 64 bits
   * @param lo its last 64 bits
   */
  int firstCopy(long hi, long lo, int doc) {
    byte[] key = ByteBuffer.allocate(17).put((byte) 'F').putLong(hi).putLong(lo).array();
    byte[] v = get(key);
    if (v != null) {
      return ByteBuffer.wrap(v).getInt();
    }
    put(key, ByteBuffer.allocate(4).putInt(doc).array());
    return -1;
  }

  static int docAt(byte[] bucket, int i) {
    return ByteBuffer.wrap(bucket).order(ByteOrder.BIG_ENDIAN).getInt(4 * i);
  }

  private static byte[] bucketKey(int band, long key) {
    return ByteBuffer.allocate(11).put((byte) 'B').putShort((short) band).putLong(key).array();
  }

  private static byte[] rowKey(char kind, int row) {
    return ByteBuffer.allocate(5).put((byte) kind).putInt(row).array();
  }

  private byte[] required(byte[] key) {
    byte[] v = get(key);
    if (v == null) {
      throw new IllegalStateException(
          "near-dup's tables in " + dir + " lost an entry they were given: is the disk full?");
    }
    return v;
  }

  private byte[] get(byte[] key) {
    try {
      return db.get(key);
    } catch (RocksDBException e) {
      throw new UncheckedIOException(failed("read", e));
    }
  }

  private void put(byte[] key, byte[] value) {
    try {
      db.put(writes, key, value);
    } catch (RocksDBException e) {
      throw new UncheckedIOException(failed("write", e));
    }
  }

  private IOException failed(String what, RocksDBException e) {
    return new IOException(
        "cannot " + what + " near-dup's tables in " + dir + ": " + e.getMessage(), e);
  }

  @Override
  public void close() {
    db.close();
    writes.close();
    options.close();
    cache.close();
  }
}
