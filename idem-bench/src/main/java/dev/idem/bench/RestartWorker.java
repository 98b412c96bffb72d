package dev.idem.bench;

import dev.idem.engine.DurableDeduplicator;
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
 * One pipeline worker of the restart scenario, a child JVM: {@code RestartWorker CONTENDER PHASE N
 * STATE OUTPUT MAX_MEMORY COMMIT_EVERY [REDIS_PORT]}. It reads the {@link RestartStream} of N ids
 * from where its done-set's last commit says, in batches of {@value #BATCH}: checks each id, writes
 * the new ones to OUTPUT and marks them; every COMMIT_EVERY messages it forces OUTPUT, then commits
 * the marks with the token (next message, output length), and on start cuts OUTPUT back to the
 * token. One protocol for every contender; only the done-set differs: idem's durable deduplicator,
 * RocksDB alone (a get per id, idem's exact-tier table settings), a {@code HashSet} rebuilt from
 * OUTPUT, or a set on a loopback Redis (pipelined {@code SISMEMBER}, {@code MULTI} per commit).
 *
 * <p>PHASE {@code load} prints {@code KILL-POINT} on reaching new id 0.7 N and goes on until the
 * harness kills it. PHASE {@code restart} prints {@code FIRST open_nanos=…} once it has answered
 * for its first message, then finishes and prints {@code RESULT} words: its decisions against the
 * stream's truth (missed: processed a redelivery; repeated: skipped a new id) and the done-set's
 * reads for ids that were new.
 *
 * <p>Why it is long: one protocol for every contender, with the four done-sets (idem, RocksDB
 * alone, a rebuilt set, Redis) beside it, so that the contenders differ only where the scenario
 * says they do.
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

    @Override
    void close() throws Exception;
  }

  private RestartWorker() {}

  public static void main(String[] args) throws Exception {
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
    long next = token == null ? 0 : token[0];
    long outBytes = token == null ? 0 : token[1];
    try (IdLog log = new IdLog(output, outBytes)) {
      String firstId = RestartStream.idOfMessage(next);
      boolean firstDone = done.contains(firstId);
      long tFirst = System.nanoTime();
      if (!load) {
        out.printf(Locale.ROOT, "FIRST open_seconds=%.3f%n", (tFirst - tOpen) / 1e9);
      }
      long readsBase = done.readsForNew();
      long killPoint = RestartStream.messageOfNew(stream.distinct() * 7 / 10);
      boolean announced = false;
      long missed = 0;
      long repeated = 0;
      long newChecked = 0;
      long end = stream.messages();
      List<String> ids = new ArrayList<>(BATCH);
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
      out.printf(
          Locale.ROOT,
          "RESULT resumed_at=%d new_checked=%d missed=%d repeated=%d reads_new=%d"
              + " first_done=%s%n",
          next,
          newChecked,
          missed,
          repeated,
          done.readsForNew() - readsBase,
          firstDone);
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
    private DurableDeduplicator done;

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
        }
      }
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
    public void close() {}
  }

  /** A Redis set on a server that outlives the worker. */
  static final class RedisDone implements DoneSet {
    static final String SET = "seen";
    static final String TOKEN = "token";
    private final int port;
    private final Set<String> pending = new HashSet<>();
    private Jedis jedis;
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
        chunk = new String[0];
      }
      t.set(TOKEN, next + " " + outputBytes);
      t.exec();
      pending.clear();
    }

    @Override
    public long readsForNew() {
      return readsNew; // one SISMEMBER per id
    }

    @Override
    public void close() {
      jedis.close();
    }
  }
}
