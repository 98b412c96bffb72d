package dev.idem.server;

import dev.idem.core.Fingerprint;
import dev.idem.core.Fingerprinter;
import dev.idem.engine.Verdict;
import dev.idem.engine.store.StateStore;
import dev.idem.engine.window.WindowStats;
import dev.idem.engine.window.WindowedDeduplicator;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;

/**
 * An IDEM key space within a window of time, on the server's clock: {@code TTL d} forgets an id d
 * after it was first seen (idem's sliding window), {@code WINDOW d} once per window of d aligned to
 * the epoch (tumbling). The open windows' ids are in memory ({@link WindowedDeduplicator}); a
 * commit writes the ids kept and the windows closed since the last one, the clock and the token, in
 * one synced RocksDB batch, and a reopen reads them back.
 */
final class WindowSetEntry extends IdemEntry {

  static final String SLIDING = "ttl";
  static final String TUMBLING = "window";

  private static final String COMMIT = "commit";
  private static final int VERSION = 1;

  private final WindowedDeduplicator window;
  private final StateStore store;
  private Path dir;
  private long cacheBytes;
  private final Fingerprinter fp = Fingerprinter.xxh3();
  private byte[] token;
  private long committedSize;

  private WindowSetEntry(
      long id,
      byte[] name,
      long expected,
      String kind,
      long millis,
      WindowedDeduplicator window,
      StateStore store) {
    super(id, name, expected, kind, millis);
    this.window = window;
    this.store = store;
  }

  static WindowSetEntry open(
      long id, byte[] name, long expected, String kind, long millis, Path dir, long cacheBytes)
      throws IOException {
    WindowedDeduplicator.Builder b = WindowedDeduplicator.builder().trackChanges();
    if (kind.equals(SLIDING)) {
      b.sliding(Duration.ofMillis(millis));
    } else {
      b.tumbling(Duration.ofMillis(millis));
    }
    WindowedDeduplicator w = b.build();
    boolean exists = Files.isRegularFile(dir.resolve("CURRENT"));
    StateStore store =
        exists
            ? StateStore.openExisting(dir, cacheBytes, false)
            : StateStore.open(dir, cacheBytes, false);
    WindowSetEntry e = new WindowSetEntry(id, name, expected, kind, millis, w, store);
    byte[] commit = store.meta(COMMIT);
    if (commit != null) {
      ByteBuffer c = ByteBuffer.wrap(commit);
      if (c.getInt() != VERSION) {
        store.close();
        throw new IOException(dir + ": the commit record is not one this version reads");
      }
      long maxEventTime = c.getLong();
      long events = c.getLong();
      long kept = c.getLong();
      long commits = c.getLong();
      int tokenLength = c.getInt();
      if (tokenLength >= 0) {
        e.token = new byte[tokenLength];
        c.get(e.token);
      }
      store.forEachWindowEntry((bucket, hi, lo, time) -> w.restoreKept(hi, lo, time));
      w.restoreClock(maxEventTime, new WindowStats(events, kept, 0, 0, 0, 0, 0, 0));
      e.checked = events;
      e.kept = kept;
      e.commits = commits;
    }
    e.committedSize = w.stats().held();
    e.dir = dir;
    e.cacheBytes = cacheBytes;
    return e;
  }

  private long now() {
    return Math.max(System.currentTimeMillis(), window.maxEventTime());
  }

  @Override
  void firstSeen(byte[][] args, int from, Reply reply) {
    reply.array(args.length - from);
    for (int i = from; i < args.length; i++) {
      reply.bool(check(args[i]));
    }
  }

  private boolean check(byte[] id) {
    Fingerprint f = fp.fingerprint(id);
    checked++;
    boolean fresh = window.check(f.hi(), f.lo(), now()) == Verdict.KEPT;
    if (fresh) {
      kept++;
      marksSinceCommit++;
    }
    return fresh;
  }

  @Override
  void contains(byte[][] args, int from, Reply reply) {
    reply.array(args.length - from);
    long t = now();
    for (int i = from; i < args.length; i++) {
      Fingerprint f = fp.fingerprint(args[i]);
      reply.bool(window.contains(f.hi(), f.lo(), t));
    }
  }

  @Override
  long mark(byte[][] args, int from) {
    long fresh = 0;
    for (int i = from; i < args.length; i++) {
      fresh += check(args[i]) ? 1 : 0;
    }
    return fresh;
  }

  @Override
  void commit(byte[] newToken) throws IOException {
    byte[] t = newToken != null ? newToken.clone() : token;
    int tokenLength = t == null ? -1 : t.length;
    ByteBuffer record =
        ByteBuffer.allocate(4 + 8 * 4 + 4 + Math.max(0, tokenLength))
            .putInt(VERSION)
            .putLong(window.maxEventTime())
            .putLong(checked)
            .putLong(kept)
            .putLong(commits + 1)
            .putInt(tokenLength);
    if (t != null) {
      record.put(t);
    }
    try (StateStore.Commit c = store.commit()) {
      window.drainChanges(
          new WindowedDeduplicator.ChangeSink() {
            @Override
            public void kept(long bucket, long hi, long lo, long time) {
              c.windowKept(bucket, hi, lo, time);
            }

            @Override
            public void dropped(long bucket) {
              c.windowDropped(bucket);
            }
          });
      c.meta(COMMIT, record.array()).write(true);
    }
    token = t;
    marksSinceCommit = 0;
    commits++;
    committedSize = window.stats().held();
  }

  @Override
  IdemEntry rollback() throws IOException {
    if (marksSinceCommit == 0) {
      return this;
    }
    store.close();
    return open(id, name, expected, windowKind, windowMillis, dir, cacheBytes);
  }

  @Override
  byte[] lastToken() {
    return token == null ? null : token.clone();
  }

  @Override
  long size() {
    return window.stats().held();
  }

  @Override
  void close() throws IOException {
    try {
      if (token == null && marksSinceCommit > 0) {
        commit(null);
      }
    } finally {
      store.close();
    }
  }

  @Override
  void abandon() {
    store.close();
  }

  @Override
  long memoryBytes() {
    return WindowedDeduplicator.stateBytesFor(Math.max(1, size()), 1);
  }

  @Override
  Map<String, Object> info() {
    Map<String, Object> m = super.info();
    m.put("Committed size", committedSize);
    m.put("Open windows", window.stats().openBuckets());
    return m;
  }
}
