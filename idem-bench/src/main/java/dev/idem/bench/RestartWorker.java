package dev.idem.bench;

import dev.idem.engine.DedupStats;
import dev.idem.engine.Deduplicator;
import dev.idem.engine.Idem;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.ByteBuffer;
import java.nio.channels.Channels;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import org.rocksdb.BlockBasedTableConfig;
import org.rocksdb.BloomFilter;
import org.rocksdb.IndexType;
import org.rocksdb.LRUCache;
import org.rocksdb.Options;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;
import org.rocksdb.WriteBatch;
import org.rocksdb.WriteOptions;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.Pipeline;
import redis.clients.jedis.Response;
import redis.clients.jedis.Transaction;

/**
 * One pipeline worker of the restart benchmark (issue #17), a child JVM: {@code RestartWorker
 * CONTENDER PHASE N STATE OUTPUT MAX_MEMORY COMMIT_EVERY [REDIS_PORT]}. It reads the {@link
 * RestartStream} of N ids from where its done-set's last commit says, in batches of {@value #BATCH}
 * messages: check each id, write the new ones to OUTPUT, mark them; every COMMIT_EVERY messages it
 * forces OUTPUT to disk and then commits the marks with the token (next message, output length). On
 * start it cuts OUTPUT back to the token's length. The same protocol for every contender; only the
 * done-set differs:
 *
 * <ul>
 *   <li>{@code idem}: {@code Idem.deduplicator().expectedKeys(N).state(STATE).maxMemory(M)},
 *       batches through {@code firstSeen(List)}, {@code commit(token)};
 *   <li>{@code rocksdb}: rocksdbjni directly, the ids' UTF-8 bytes as keys, the same table settings
 *       as idem's exact tier (Bloom filter 10 bits/key, partitioned index and filters, LRU block
 *       cache of M bytes); every id a {@code get}, a new one a {@code put} into the commit's {@link
 *       WriteBatch}, written with the token, synced (ids marked since the last commit are looked up
 *       in a small in-heap set first);
 *   <li>{@code hashset}: a {@code HashSet<String>} (sized for N) rebuilt on start by reading
 *       OUTPUT; the token is a small file beside it, replaced atomically after the output is
 *       forced;
 *   <li>{@code redis}: a set on a loopback redis-server: pipelined {@code SISMEMBER} per batch, and
 *       per commit one {@code MULTI} with {@code SADD}s of ≤ 1000 ids and a {@code SET} of the
 *       token; a restart reconnects.
 * </ul>
 *
 * PHASE {@code load}: from the start; on reaching the message of new id 0.7 N it prints {@code
 * KILL-POINT} and goes on until the harness kills it (SIGKILL). PHASE {@code restart}: opens the
 * state, answers for the first message from the token (prints {@code FIRST} and the nanoseconds
 * since the open call, as the first output to stdout), then finishes the stream and prints {@code
 * RESULT} lines: its decisions against the stream's ground truth (missed: processed a redelivery;
 * repeated: skipped a new id) and the done-set's reads for new ids.
 */
public final class RestartWorker {

  static final int BATCH = 1000;

  /** The done-set of one contender. */
  interface DoneSet extends AutoCloseable {
    /** Opens (or rebuilds) the state; the last commit's token {next message, output bytes}. */
    long[] open() throws Exception;

    /** Is this id done? Marks nothing. */
    boolean contains(String id) throws Exception;

    /** For each id in order: true when new (then marked, durable at the next commit). */
    boolean[] checkAndMark(List<String> ids) throws Exception;

    void commit(long next, long outputBytes) throws Exception;

    /** Reads of the exact tier / store caused by ids answered new, since open. */
    long readsForNew();

    /** Counters worth reporting, as "name=value" words. */
    String stats();

    @Override
    void close() throws Exception;
  }

  private RestartWorker() {}

  public static void main(String[] args) throws Exception {
    long tStart = System.nanoTime();
    if (args[0].equals("--idle")) {
      return; // the harness's JVM baseline: start, touch the heap, exit
    }
    String contender = args[0];
    boolean load = args[1].equals("load");
    RestartStream stream = new RestartStream(Long.parseLong(args[2]));
    Path state = Path.of(args[3]);
    Path output = Path.of(args[4]);
    long maxMemory = Long.parseLong(args[5]);
    int commitEvery = Integer.parseInt(args[6]);
    if (commitEvery % BATCH != 0) {
      throw new IllegalArgumentException("COMMIT_EVERY must be a multiple of " + BATCH);
    }
    PrintStream out =
        new PrintStream(
            new java.io.FileOutputStream(java.io.FileDescriptor.out), true, StandardCharsets.UTF_8);
    DoneSet done =
        switch (contender) {
          case "idem" -> new IdemDone(state, stream.distinct(), maxMemory);
          case "rocksdb" -> new RocksDone(state, maxMemory);
          case "hashset" -> new HashSetDone(state, output, stream.distinct());
          case "redis" -> new RedisDone(Integer.parseInt(args[7]));
          default -> throw new IllegalArgumentException("unknown contender " + contender);
        };
    long tOpen = System.nanoTime();
    long[] token = done.open();
    long tOpened = System.nanoTime();
    long next = token == null ? 0 : token[0];
    long outBytes = token == null ? 0 : token[1];
    try (IdLog log = new IdLog(output, outBytes)) {
      String firstId = RestartStream.idOfMessage(next);
      boolean firstDone = done.contains(firstId);
      long tFirst = System.nanoTime();
      if (!load) {
        out.printf(
            Locale.ROOT,
            "FIRST %d %d %s%n",
            tFirst - tOpen,
            tFirst - tStart,
            firstDone ? "done" : "new");
      }
      long readsBase = done.readsForNew();
      long killPoint = RestartStream.messageOfNew(stream.distinct() * 7 / 10);
      boolean announced = false;
      long processed = 0;
      long missed = 0;
      long repeated = 0;
      long newChecked = 0;
      long end = stream.messages();
      List<String> ids = new ArrayList<>(BATCH);
      long loopStart = System.nanoTime();
      for (long m = next; m < end; ) {
        int n = (int) Math.min(BATCH, end - m);
        ids.clear();
        for (int i = 0; i < n; i++) {
          ids.add(RestartStream.idOfMessage(m + i));
        }
        boolean[] fresh = done.checkAndMark(ids);
        for (int i = 0; i < n; i++) {
          boolean truth = RestartStream.isNew(m + i);
          if (truth) {
            newChecked++;
          }
          if (fresh[i]) {
            log.append(ids.get(i));
            processed++;
            if (!truth) {
              missed++;
            }
          } else if (truth) {
            repeated++;
          }
        }
        m += n;
        if (m % commitEvery == 0 || m == end) {
          log.force(); // the output first: a commit never names bytes not on disk
          done.commit(m, log.length());
        }
        if (load && !announced && m >= killPoint) {
          out.println("KILL-POINT " + m);
          announced = true;
        }
      }
      double loopSeconds = (System.nanoTime() - loopStart) / 1e9;
      out.printf(
          Locale.ROOT,
          "RESULT resumed_at=%d messages=%d new_checked=%d processed=%d "
              + "missed=%d repeated=%d reads_new=%d open_seconds=%.3f loop_seconds=%.3f first_done=%s "
              + "%s%n",
          next,
          end - next,
          newChecked,
          processed,
          missed,
          repeated,
          done.readsForNew() - readsBase,
          (tOpened - tOpen) / 1e9,
          loopSeconds,
          firstDone,
          done.stats());
    }
    done.close();
  }

  /** The output: one id per line, appended through a buffer, forced on commit. */
  static final class IdLog implements AutoCloseable {
    private final FileChannel channel;
    private final ByteBuffer buffer = ByteBuffer.allocate(1 << 20);
    private long length;

    IdLog(Path file, long keep) throws IOException {
      channel = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.WRITE);
      channel.truncate(keep);
      channel.position(keep);
      length = keep;
    }

    void append(String id) throws IOException {
      if (buffer.remaining() < id.length() + 1) {
        drain();
      }
      for (int i = 0; i < id.length(); i++) {
        buffer.put((byte) id.charAt(i)); // ids are ASCII
      }
      buffer.put((byte) '\n');
      length += id.length() + 1;
    }

    void force() throws IOException {
      drain();
      channel.force(false);
    }

    long length() {
      return length;
    }

    private void drain() throws IOException {
      buffer.flip();
      while (buffer.hasRemaining()) {
        channel.write(buffer);
      }
      buffer.clear();
    }

    @Override
    public void close() throws IOException {
      force();
      channel.close();
    }
  }

  static byte[] token(long next, long outputBytes) {
    return ByteBuffer.allocate(16).putLong(next).putLong(outputBytes).array();
  }

  static long[] token(byte[] bytes) {
    if (bytes == null) {
      return null;
    }
    ByteBuffer b = ByteBuffer.wrap(bytes);
    return new long[] {b.getLong(), b.getLong()};
  }

  /** idem's durable deduplicator. */
  static final class IdemDone implements DoneSet {
    private final Path dir;
    private final long n;
    private final long maxMemory;
    private Deduplicator done;

    IdemDone(Path dir, long n, long maxMemory) {
      this.dir = dir;
      this.n = n;
      this.maxMemory = maxMemory;
    }

    @Override
    public long[] open() throws IOException {
      done = Idem.deduplicator().expectedKeys(n).state(dir).maxMemory(maxMemory).open();
      return token(done.lastCommittedToken());
    }

    @Override
    public boolean contains(String id) {
      return done.contains(id);
    }

    @Override
    public boolean[] checkAndMark(List<String> ids) {
      return done.firstSeen(ids);
    }

    @Override
    public void commit(long next, long outputBytes) {
      done.commit(token(next, outputBytes));
    }

    @Override
    public long readsForNew() {
      // a new id reaches the exact tier only when the filter says "maybe": one read, rescued
      return done.stats().falsePositivesRescued();
    }

    @Override
    public String stats() {
      DedupStats s = done.stats();
      return "exact_lookups="
          + s.exactLookups()
          + " rescued="
          + s.falsePositivesRescued()
          + " duplicates="
          + s.duplicates()
          + " filter_bits="
          + done.filter().bitSize()
          + " commits="
          + done.commits()
          + " warnings="
          + done.warnings().size();
    }

    @Override
    public void close() {
      done.close();
    }
  }

  /** RocksDB alone: a get for every id, a put for each new one. */
  static final class RocksDone implements DoneSet {
    private static final byte[] TOKEN = {0, 't', 'o', 'k', 'e', 'n'};
    private static final byte[] EMPTY = new byte[0];
    private final Path dir;
    private final long maxMemory;
    private final Set<String> pending = new HashSet<>();
    private RocksDB db;
    private Options options;
    private LRUCache cache;
    private BloomFilter bloom;
    private WriteBatch batch;
    private WriteOptions sync;
    private long gets;
    private long readsNew;

    RocksDone(Path dir, long maxMemory) {
      this.dir = dir;
      this.maxMemory = maxMemory;
    }

    @Override
    public long[] open() throws Exception {
      // in open, as idem's StateStore does it in its open: extracting the native library from
      // the jar (tens of MB) is part of every cold start of a RocksDB user that does not cache it
      RocksDB.loadLibrary();
      batch = new WriteBatch();
      sync = new WriteOptions().setSync(true);
      cache = new LRUCache(maxMemory);
      bloom = new BloomFilter(10);
      // the table settings of idem's exact tier (StateStore's `seen`), so that the difference
      // measured is the filter tier in front, not a tuning
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
      options =
          new Options()
              .setCreateIfMissing(true)
              .setTableFormatConfig(table)
              .setLevelCompactionDynamicLevelBytes(true)
              .setMaxBackgroundJobs(2)
              .setKeepLogFileNum(3);
      Files.createDirectories(dir);
      db = RocksDB.open(options, dir.toString());
      return token(db.get(TOKEN));
    }

    @Override
    public boolean contains(String id) throws RocksDBException {
      return pending.contains(id) || db.get(id.getBytes(StandardCharsets.UTF_8)) != null;
    }

    @Override
    public boolean[] checkAndMark(List<String> ids) throws RocksDBException {
      boolean[] fresh = new boolean[ids.size()];
      for (int i = 0; i < fresh.length; i++) {
        String id = ids.get(i);
        if (pending.contains(id)) {
          continue;
        }
        byte[] key = id.getBytes(StandardCharsets.UTF_8);
        gets++;
        if (db.get(key) == null) {
          readsNew++;
          batch.put(key, EMPTY);
          pending.add(id);
          fresh[i] = true;
        }
      }
      return fresh;
    }

    @Override
    public void commit(long next, long outputBytes) throws RocksDBException {
      batch.put(TOKEN, token(next, outputBytes));
      db.write(sync, batch);
      batch.clear();
      pending.clear();
    }

    @Override
    public long readsForNew() {
      return readsNew;
    }

    @Override
    public String stats() {
      return "gets=" + gets;
    }

    @Override
    public void close() {
      db.close();
      options.close();
      cache.close();
      bloom.close();
      batch.close();
      sync.close();
    }
  }

  /** A HashSet of the ids, rebuilt from the output on start. */
  static final class HashSetDone implements DoneSet {
    private final Path tokenFile;
    private final Path output;
    private final Set<String> set;
    private long rescanned;
    private long rescanNanos;

    HashSetDone(Path dir, Path output, long n) throws IOException {
      Files.createDirectories(dir);
      this.tokenFile = dir.resolve("token");
      this.output = output;
      this.set = new HashSet<>((int) Math.min(Integer.MAX_VALUE - 8, n * 4 / 3 + 16));
    }

    @Override
    public long[] open() throws IOException {
      if (!Files.exists(tokenFile)) {
        return null;
      }
      long[] token = token(Files.readAllBytes(tokenFile));
      long t0 = System.nanoTime();
      try (FileChannel ch = FileChannel.open(output, StandardOpenOption.WRITE)) {
        ch.truncate(token[1]); // what the last commit named, and nothing after
      }
      try (BufferedReader r =
          new BufferedReader(
              new InputStreamReader(
                  Channels.newInputStream(FileChannel.open(output)), StandardCharsets.US_ASCII),
              1 << 20)) {
        for (String line = r.readLine(); line != null; line = r.readLine()) {
          set.add(line);
          rescanned++;
        }
      }
      rescanNanos = System.nanoTime() - t0;
      return token;
    }

    @Override
    public boolean contains(String id) {
      return set.contains(id);
    }

    @Override
    public boolean[] checkAndMark(List<String> ids) {
      boolean[] fresh = new boolean[ids.size()];
      for (int i = 0; i < fresh.length; i++) {
        fresh[i] = set.add(ids.get(i));
      }
      return fresh;
    }

    @Override
    public void commit(long next, long outputBytes) throws IOException {
      Path tmp = tokenFile.resolveSibling("token.tmp");
      try (FileChannel ch =
          FileChannel.open(
              tmp,
              StandardOpenOption.CREATE,
              StandardOpenOption.WRITE,
              StandardOpenOption.TRUNCATE_EXISTING)) {
        ch.write(ByteBuffer.wrap(token(next, outputBytes)));
        ch.force(false);
      }
      Files.move(
          tmp, tokenFile, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    }

    @Override
    public long readsForNew() {
      return 0; // no store: every check is an in-heap lookup
    }

    @Override
    public String stats() {
      return String.format(
          Locale.ROOT, "rescanned=%d rescan_seconds=%.3f", rescanned, rescanNanos / 1e9);
    }

    @Override
    public void close() {}
  }

  /** A Redis set on a server that outlives the worker. */
  static final class RedisDone implements DoneSet {
    static final String SET = "seen";
    static final String TOKEN = "token";
    private final int port;
    private final Set<String> pending = new HashSet<>();
    private Jedis jedis;
    private long commands;
    private long roundTrips;
    private long readsNew;

    RedisDone(int port) {
      this.port = port;
    }

    @Override
    public long[] open() {
      jedis = new Jedis("127.0.0.1", port, 60_000);
      String t = jedis.get(TOKEN);
      if (t == null) {
        return null;
      }
      String[] f = t.split(" ");
      return new long[] {Long.parseLong(f[0]), Long.parseLong(f[1])};
    }

    @Override
    public boolean contains(String id) {
      return pending.contains(id) || jedis.sismember(SET, id);
    }

    @Override
    public boolean[] checkAndMark(List<String> ids) {
      Pipeline p = jedis.pipelined();
      List<Response<Boolean>> answers = new ArrayList<>(ids.size());
      for (String id : ids) {
        answers.add(p.sismember(SET, id));
      }
      p.sync();
      commands += ids.size();
      roundTrips++;
      boolean[] fresh = new boolean[ids.size()];
      for (int i = 0; i < fresh.length; i++) {
        if (!answers.get(i).get() && pending.add(ids.get(i))) {
          readsNew++;
          fresh[i] = true;
        }
      }
      return fresh;
    }

    @Override
    public void commit(long next, long outputBytes) {
      Transaction t = jedis.multi();
      String[] chunk = new String[0];
      List<String> all = new ArrayList<>(pending);
      for (int from = 0; from < all.size(); from += BATCH) {
        chunk = all.subList(from, Math.min(all.size(), from + BATCH)).toArray(chunk);
        t.sadd(SET, chunk);
        commands++;
        chunk = new String[0];
      }
      t.set(TOKEN, next + " " + outputBytes);
      t.exec();
      commands += 3;
      roundTrips++;
      pending.clear();
    }

    @Override
    public long readsForNew() {
      return readsNew; // one SISMEMBER per id
    }

    @Override
    public String stats() {
      return "redis_commands=" + commands + " round_trips=" + roundTrips;
    }

    @Override
    public void close() {
      jedis.close();
    }
  }
}
