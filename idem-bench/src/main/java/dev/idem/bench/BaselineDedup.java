package dev.idem.bench;

import dev.idem.core.Fingerprint;
import dev.idem.core.Fingerprinter;
import dev.idem.core.filter.FingerprintSet;
import dev.idem.engine.records.LineReader;
import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;
import java.util.HashSet;
import org.rocksdb.BlockBasedTableConfig;
import org.rocksdb.BloomFilter;
import org.rocksdb.LRUCache;
import org.rocksdb.Options;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;

/**
 * The end-to-end benchmark's baselines, each a child JVM: {@code BaselineDedup STRATEGY INPUT
 * OUTPUT STATE_DIR HALT_AT STATS_FILE}. A resumable JSONL dedup by field {@code id} done the simple
 * ways of the 500 M-record restart case (docs/DESIGN.md, section 5):
 *
 * <ul>
 *   <li>{@code rescan}: on start, re-read and re-parse all output written so far into an exact
 *       {@link FingerprintSet}, then continue from the input position noted in {@code STATE_DIR};
 *   <li>{@code hashset}: the same into a {@code HashSet<String>} of the keys;
 *   <li>{@code rocksdb}: every record is a RocksDB point lookup (and a put when new); the DB in
 *       {@code STATE_DIR} holds the keys and the input position, so a restart only reopens it.
 * </ul>
 *
 * Every 100,000 records the output is flushed, then the input position is saved. With {@code
 * HALT_AT} &gt; 0 the process saves at that record count and dies by {@code Runtime.halt} (a
 * simulated crash at a clean checkpoint, which spares the baselines the torn states a real kill can
 * leave). Counters of this run go to {@code STATS_FILE} as {@code name=value} lines.
 */
final class BaselineDedup {

  private static final byte[] MARKER = "\"id\":\"".getBytes(StandardCharsets.US_ASCII);
  private static final byte[] POSITION_KEY = {0, 'p', 'o', 's'};
  private static final int CHECKPOINT_EVERY = 100_000;

  /** The exact set a strategy keeps: check-and-add, persisted or not. */
  private interface Seen extends AutoCloseable {
    boolean addIfAbsent(byte[] b, int off, int len) throws RocksDBException;

    /** Saves {@code "offset records"} durably enough to resume from it. */
    void savePosition(String position) throws IOException, RocksDBException;

    String loadPosition() throws IOException, RocksDBException;

    @Override
    void close();
  }

  private BaselineDedup() {}

  public static void main(String[] args) throws Exception {
    if (args.length != 6) {
      System.err.println(
          "usage: BaselineDedup rescan|hashset|rocksdb INPUT OUTPUT STATE_DIR"
              + " HALT_AT STATS_FILE");
      System.exit(2);
    }
    long started = System.nanoTime();
    String strategy = args[0];
    Path input = Path.of(args[1]);
    Path output = Path.of(args[2]);
    Path state = Path.of(args[3]);
    long haltAt = Long.parseLong(args[4]);
    Path statsFile = Path.of(args[5]);
    Files.createDirectories(state);
    long rebuilt = 0;
    Seen seen;
    switch (strategy) {
      case "rescan" -> {
        FingerprintSet set = FingerprintSet.withExpectedSize(1 << 20);
        Fingerprinter fp = Fingerprinter.xxh3();
        seen =
            new FileState(state) {
              @Override
              public boolean addIfAbsent(byte[] b, int off, int len) {
                Fingerprint f = fp.fingerprint(b, off, len);
                return set.addIfAbsent(f.hi(), f.lo());
              }
            };
        rebuilt = rebuild(output, seen);
      }
      case "hashset" -> {
        HashSet<String> set = new HashSet<>();
        seen =
            new FileState(state) {
              @Override
              public boolean addIfAbsent(byte[] b, int off, int len) {
                return set.add(new String(b, off, len, StandardCharsets.ISO_8859_1));
              }
            };
        rebuilt = rebuild(output, seen);
      }
      case "rocksdb" -> seen = new RocksState(state);
      default -> throw new IllegalArgumentException("unknown strategy " + strategy);
    }
    String[] pos = seen.loadPosition().split(" ");
    long offset = Long.parseLong(pos[0]);
    long records = Long.parseLong(pos[1]);
    long restoreNanos = System.nanoTime() - started;
    long read = 0;
    long kept = 0;
    long firstKeptNanos = -1;
    try (InputStream in = Files.newInputStream(input);
        OutputStream out =
            new BufferedOutputStream(
                Files.newOutputStream(
                    output,
                    StandardOpenOption.CREATE,
                    StandardOpenOption.WRITE,
                    StandardOpenOption.APPEND),
                1 << 16)) {
      in.skipNBytes(offset);
      LineReader lines = new LineReader(in, input.toString(), offset, records);
      while (lines.next()) {
        byte[] b = lines.bytes();
        int start = keyStart(b, lines.offset(), lines.length());
        int end = keyEnd(b, start, lines.offset() + lines.length());
        read++;
        if (seen.addIfAbsent(b, start, end - start)) {
          out.write(b, lines.offset(), lines.length() + lines.terminatorLength());
          kept++;
          if (firstKeptNanos < 0) {
            firstKeptNanos = System.nanoTime() - started;
          }
        }
        long done = records + read;
        if (done % CHECKPOINT_EVERY == 0 || done == haltAt) {
          out.flush();
          seen.savePosition(lines.bytesConsumed() + " " + done);
          if (done == haltAt) {
            writeStats(
                statsFile, strategy, rebuilt, read, kept, restoreNanos, firstKeptNanos, started);
            Runtime.getRuntime().halt(137);
          }
        }
      }
      out.flush();
      seen.savePosition(lines.bytesConsumed() + " " + (records + read));
    }
    seen.close();
    writeStats(statsFile, strategy, rebuilt, read, kept, restoreNanos, firstKeptNanos, started);
  }

  /** Re-reads the output written so far, every record's key into the set: the "scan all". */
  private static long rebuild(Path output, Seen seen) throws Exception {
    if (!Files.exists(output)) {
      return 0;
    }
    long n = 0;
    try (LineReader lines = new LineReader(Files.newInputStream(output), output.toString())) {
      while (lines.next()) {
        byte[] b = lines.bytes();
        int start = keyStart(b, lines.offset(), lines.length());
        seen.addIfAbsent(b, start, keyEnd(b, start, lines.offset() + lines.length()) - start);
        n++;
      }
    }
    return n;
  }

  private static int keyStart(byte[] b, int off, int len) {
    int end = off + len - MARKER.length;
    for (int i = off; i <= end; i++) {
      if (b[i] == '"' && Arrays.equals(b, i, i + MARKER.length, MARKER, 0, MARKER.length)) {
        return i + MARKER.length;
      }
    }
    throw new IllegalStateException("no \"id\" in a record");
  }

  private static int keyEnd(byte[] b, int start, int limit) {
    int i = start;
    while (i < limit && b[i] != '"') {
      i++;
    }
    return i;
  }

  private static void writeStats(
      Path file,
      String strategy,
      long rebuilt,
      long read,
      long kept,
      long restoreNanos,
      long firstKeptNanos,
      long started)
      throws IOException {
    Files.writeString(
        file,
        "strategy="
            + strategy
            + "\nrebuilt="
            + rebuilt
            + "\nrecords="
            + read
            + "\nkept="
            + kept
            + "\nlookups="
            + read
            + "\nrestore_millis="
            + restoreNanos / 1_000_000
            + "\nfirst_record_millis="
            + firstKeptNanos / 1_000_000
            + "\nelapsed_millis="
            + (System.nanoTime() - started) / 1_000_000
            + "\n");
  }

  /** Position in a small file next to the output, replaced atomically. */
  private abstract static class FileState implements Seen {
    private final Path file;

    FileState(Path dir) {
      this.file = dir.resolve("position");
    }

    @Override
    public void savePosition(String position) throws IOException {
      Path tmp = file.resolveSibling("position.tmp");
      Files.writeString(tmp, position);
      Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    }

    @Override
    public String loadPosition() throws IOException {
      return Files.exists(file) ? Files.readString(file).trim() : "0 0";
    }

    @Override
    public void close() {}
  }

  /** Keys and position in one RocksDB, tuned for point lookups as idem's own store is. */
  private static final class RocksState implements Seen {
    static {
      RocksDB.loadLibrary(); // before any RocksDB object, the cache below included
    }

    private static final byte[] EMPTY = new byte[0];
    private final LRUCache cache = new LRUCache(64L << 20);
    private final Options options;
    private final RocksDB db;
    private byte[] key = new byte[64];

    RocksState(Path dir) throws RocksDBException {
      options =
          new Options()
              .setCreateIfMissing(true)
              .setTableFormatConfig(
                  new BlockBasedTableConfig()
                      .setBlockCache(cache)
                      .setFilterPolicy(new BloomFilter(10)));
      db = RocksDB.open(options, dir.toString());
    }

    @Override
    public boolean addIfAbsent(byte[] b, int off, int len) throws RocksDBException {
      if (key.length != len) {
        key = new byte[len];
      }
      System.arraycopy(b, off, key, 0, len);
      if (db.get(key) != null) {
        return false;
      }
      db.put(key, EMPTY);
      return true;
    }

    @Override
    public void savePosition(String position) throws RocksDBException {
      db.put(POSITION_KEY, position.getBytes(StandardCharsets.US_ASCII));
    }

    @Override
    public String loadPosition() throws RocksDBException {
      byte[] v = db.get(POSITION_KEY);
      return v == null ? "0 0" : new String(v, StandardCharsets.US_ASCII);
    }

    @Override
    public void close() {
      db.close();
      options.close();
      cache.close();
    }
  }
}
