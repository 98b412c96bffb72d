package dev.idem.engine.store;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idem.core.Fingerprint;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.rocksdb.ColumnFamilyDescriptor;
import org.rocksdb.ColumnFamilyHandle;
import org.rocksdb.DBOptions;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;
import org.rocksdb.WriteBatch;

/**
 * The puts into {@code seen} encoded in Java are the batch RocksDB builds from one put a key, byte
 * for byte, and a store committed through them holds every key, also after it is reopened.
 */
class SeenBatchTest {

  @TempDir Path dir;

  private static PendingKeys keys(int n, boolean fullKeys, long seed) {
    SplittableRandom random = new SplittableRandom(seed);
    PendingKeys keys = new PendingKeys();
    for (int i = 0; i < n; i++) {
      // lengths across the one- and two-byte varints
      byte[] key = new byte[random.nextInt(1, 300)];
      random.nextBytes(key);
      keys.add(random.nextLong(), random.nextLong(), fullKeys ? key : null);
    }
    return keys;
  }

  @Test
  void isTheBatchRocksDbBuildsFromOnePutAKey() throws RocksDBException {
    RocksDB.loadLibrary();
    List<ColumnFamilyHandle> handles = new ArrayList<>();
    List<ColumnFamilyDescriptor> families = new ArrayList<>();
    families.add(new ColumnFamilyDescriptor(RocksDB.DEFAULT_COLUMN_FAMILY));
    for (int f = 1; f < 200; f++) { // ids past 127 take a two-byte varint
      families.add(new ColumnFamilyDescriptor(("cf" + f).getBytes(StandardCharsets.US_ASCII)));
    }
    try (DBOptions options =
            new DBOptions().setCreateIfMissing(true).setCreateMissingColumnFamilies(true);
        RocksDB db = RocksDB.open(options, dir.toString(), families, handles)) {
      for (ColumnFamilyHandle cf : List.of(handles.get(1), handles.get(199))) {
        for (boolean fullKeys : new boolean[] {false, true}) {
          PendingKeys keys = keys(500, fullKeys, cf.getID());
          int[] order = FingerprintOrder.of(keys);
          try (WriteBatch reference = new WriteBatch()) {
            for (int i : order) {
              byte[] fp = new byte[16];
              Fingerprint.write(keys.hi(i), keys.lo(i), fp, 0);
              if (fullKeys) {
                reference.put(cf, keys.key(i), fp);
              } else {
                reference.put(cf, fp, new byte[0]);
              }
            }
            assertThat(SeenBatch.encode(cf.getID(), keys, order, fullKeys))
                .as("column family %d, full keys %s", cf.getID(), fullKeys)
                .isEqualTo(reference.data());
          }
        }
      }
      handles.forEach(ColumnFamilyHandle::close);
    }
  }

  @Test
  void aStoreCommittedThroughItHoldsEveryKeyAfterItIsReopened() throws IOException {
    for (boolean fullKeys : new boolean[] {false, true}) {
      Path storeDir = dir.resolve("store-" + fullKeys);
      Set<String> committed = new HashSet<>();
      try (StateStore store = StateStore.open(storeDir, 8 << 20, fullKeys)) {
        for (int c = 1; c <= 3; c++) {
          PendingKeys keys = keys(2_000, fullKeys, 10 * c + (fullKeys ? 1 : 0));
          try (StateStore.Commit commit = store.commit()) {
            commit.seen(keys).journal(c, keys).meta("commit", new byte[] {(byte) c}).write(true);
          }
          for (int i = 0; i < keys.size(); i++) {
            committed.add(keys.hi(i) + ":" + keys.lo(i));
          }
        }
      }
      try (StateStore store = StateStore.openExisting(storeDir, 8 << 20, fullKeys)) {
        Set<String> seen = new HashSet<>();
        store.forEachSeen((hi, lo, key) -> seen.add(hi + ":" + lo));
        assertThat(seen).as("full keys %s", fullKeys).isEqualTo(committed);
        long[] journaled = new long[1];
        store.forEachJournaled(1, 3, (hi, lo, key) -> journaled[0]++);
        assertThat(journaled[0]).isEqualTo(committed.size());
        assertThat(store.meta("commit")).containsExactly(3);
      }
    }
  }
}
