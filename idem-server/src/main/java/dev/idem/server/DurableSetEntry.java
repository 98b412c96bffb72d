package dev.idem.server;

import dev.idem.core.Fingerprinter;
import dev.idem.core.filter.MembershipFilter;
import dev.idem.engine.Deduplicator;
import dev.idem.engine.DurableDeduplicator;
import dev.idem.engine.Idem;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.Map;

/** An IDEM key space for ever: the library's durable deduplicator in its own directory. */
final class DurableSetEntry extends IdemEntry {

  private final DurableDeduplicator dedup;
  private final Fingerprinter fp;
  private final long[] fps = new long[2 * MembershipFilter.PREFETCH_CHUNK];

  private final Path dir;
  private final long cacheBytes;

  private DurableSetEntry(
      long id, byte[] name, long expected, DurableDeduplicator dedup, Path dir, long cacheBytes) {
    super(id, name, expected, null, 0);
    this.dir = dir;
    this.cacheBytes = cacheBytes;
    this.dedup = dedup;
    this.fp = dedup.fingerprinter();
  }

  static DurableSetEntry open(long id, byte[] name, long expected, Path dir, long cacheBytes)
      throws IOException {
    Deduplicator.Builder b = Idem.deduplicator().state(dir).maxMemory(cacheBytes);
    if (expected > 0) {
      b.expectedKeys(expected);
    }
    return new DurableSetEntry(id, name, expected, b.open(), dir, cacheBytes);
  }

  @Override
  void firstSeen(byte[][] args, int from, Reply reply) {
    reply.array(args.length - from);
    batch(args, from, true, reply);
  }

  @Override
  void contains(byte[][] args, int from, Reply reply) {
    reply.array(args.length - from);
    batch(args, from, false, reply);
  }

  @Override
  long mark(byte[][] args, int from) {
    return batch(args, from, true, null);
  }

  /** Checks (and marks) the ids in chunks whose memory reads are prefetched together. */
  private long batch(byte[][] args, int from, boolean mark, Reply reply) {
    int chunk = MembershipFilter.PREFETCH_CHUNK;
    long fresh = 0;
    for (int at = from; at < args.length; at += chunk) {
      int n = Math.min(chunk, args.length - at);
      for (int i = 0; i < n; i++) {
        byte[] id = args[at + i];
        fp.fingerprintInto(id, 0, id.length, fps, i);
      }
      dedup.prefetch(fps, 0, n);
      for (int i = 0; i < n; i++) {
        boolean answer;
        if (mark) {
          answer = dedup.firstSeen(fps[2 * i], fps[2 * i + 1], null);
          if (answer) {
            fresh++;
            marksSinceCommit++;
          }
        } else {
          answer = dedup.contains(args[at + i]);
        }
        if (reply != null) {
          reply.bool(answer);
        }
      }
    }
    if (mark) {
      checked += args.length - from;
      kept += fresh;
    }
    return fresh;
  }

  @Override
  void commit(byte[] token) throws IOException {
    try {
      dedup.commit(token);
    } catch (UncheckedIOException e) {
      throw e.getCause();
    }
    marksSinceCommit = 0;
    commits++;
  }

  @Override
  IdemEntry rollback() throws IOException {
    if (marksSinceCommit == 0) {
      return this;
    }
    dedup.abandon();
    DurableSetEntry e = open(id, name, expected, dir, cacheBytes);
    e.checked = checked;
    e.kept = kept - marksSinceCommit;
    e.commits = commits;
    return e;
  }

  @Override
  byte[] lastToken() {
    return dedup.lastCommittedToken();
  }

  @Override
  long size() {
    return dedup.filter().approximateCount();
  }

  @Override
  void close() throws IOException {
    try {
      dedup.close();
    } catch (UncheckedIOException e) {
      throw e.getCause();
    }
  }

  @Override
  void abandon() throws IOException {
    dedup.abandon();
  }

  @Override
  long memoryBytes() {
    return (dedup.filter().bitSize() + 7) / 8;
  }

  @Override
  Map<String, Object> info() {
    Map<String, Object> m = super.info();
    m.put("Filter", dedup.filter().type().displayName());
    m.put("Filter bytes", memoryBytes());
    m.put("Exact-tier lookups", dedup.stats().exactLookups());
    return m;
  }
}
