package dev.idem.bench;

import dev.idem.core.filter.FilterSnapshot;
import dev.idem.engine.Deduplicator;
import dev.idem.engine.Idem;
import dev.idem.engine.store.StateStore;
import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.TreeMap;

/**
 * Where the time of idem's reopen goes, on a copy of the state a kill left (a child JVM of the
 * restart run, {@code RestartOpenProbe STATE N MAX_MEMORY}): the state's files by kind, then (1)
 * RocksDB alone opened after the kill ({@link StateStore#openExisting}: recovery of the write-ahead
 * log included) and closed, (2) RocksDB opened again (the log now recovered), (3) the filter
 * snapshot mapped, (4) the whole deduplicator opened (snapshot mapped, journal replayed) on the
 * recovered state, and its first answer. Before (1), (0): RocksDB's native library loaded (the
 * jar's copy extracted to a temporary file), which idem's open does first. Prints one {@code PROBE}
 * line of name=value words. The classes are loaded by (1), so (2)–(4) do not pay for it.
 */
public final class RestartOpenProbe {

  private RestartOpenProbe() {}

  public static void main(String[] args) throws IOException {
    Path state = Path.of(args[0]);
    long n = Long.parseLong(args[1]);
    long maxMemory = Long.parseLong(args[2]);
    TreeMap<String, Long> bytes = new TreeMap<>();
    Path store = state.resolve("store");
    Path snapshot = null;
    for (Path dir : new Path[] {state, store}) {
      try (DirectoryStream<Path> files = Files.newDirectoryStream(dir)) {
        for (Path f : files) {
          if (!Files.isRegularFile(f)) {
            continue;
          }
          String name = f.getFileName().toString();
          String kind =
              name.endsWith(".log")
                  ? "wal"
                  : name.endsWith(".sst") ? "sst" : name.endsWith(".snap") ? "snapshot" : "other";
          if (kind.equals("snapshot")) {
            snapshot = f;
          }
          bytes.merge(kind, Files.size(f), Long::sum);
        }
      }
    }
    long tLib = System.nanoTime();
    org.rocksdb.RocksDB.loadLibrary(); // what StateStore's class initialisation does first
    long t0 = System.nanoTime();
    try (StateStore s = StateStore.openExisting(store, maxMemory, false)) {
      s.meta("commit");
    }
    long t1 = System.nanoTime();
    try (StateStore s = StateStore.openExisting(store, maxMemory, false)) {
      s.meta("commit");
    }
    long t2 = System.nanoTime();
    long mapped = -1;
    if (snapshot != null) {
      FilterSnapshot fs = FilterSnapshot.map(snapshot);
      mapped = System.nanoTime() - t2;
      fs.filter().bitSize();
    }
    long t3 = System.nanoTime();
    long tOpen;
    long tFirst;
    try (Deduplicator d =
        Idem.deduplicator().expectedKeys(n).state(state).maxMemory(maxMemory).open()) {
      tOpen = System.nanoTime();
      d.contains(RestartStream.id(n + 1));
      tFirst = System.nanoTime();
    }
    StringBuilder b = new StringBuilder("PROBE");
    bytes.forEach(
        (k, v) ->
            b.append(' ')
                .append(k)
                .append("_mib=")
                .append(String.format(Locale.ROOT, "%.1f", v / 1048576.0)));
    b.append(String.format(Locale.ROOT, " native_library_load_s=%.3f", (t0 - tLib) / 1e9));
    b.append(
        String.format(
            Locale.ROOT,
            " rocksdb_open_after_kill_s=%.3f rocksdb_reopen_s=%.3f "
                + "snapshot_map_s=%.3f dedup_open_recovered_s=%.3f first_answer_s=%.3f",
            (t1 - t0) / 1e9,
            (t2 - t1) / 1e9,
            mapped / 1e9,
            (tOpen - t3) / 1e9,
            (tFirst - tOpen) / 1e9));
    System.out.println(b);
  }
}
