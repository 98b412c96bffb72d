package dev.idem.server;

import java.io.IOException;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * An {@code IDEM.*} key space: an exact seen-set, durable at each commit. Two kinds: for ever (the
 * library's durable deduplicator: a filter in front, RocksDB behind) or within a window of time
 * ({@code TTL} or {@code WINDOW}: idem's window rules, on the server's clock).
 */
abstract class IdemEntry extends Entry {

  static final String TYPE = "idem-set";

  /** The keys each {@code IDEM.RESERVE} was given: {@code EXPECTED}, window kind and size. */
  final long expected;

  final String windowKind;
  final long windowMillis;

  long checked;
  long kept;
  long marksSinceCommit;
  long commits;

  IdemEntry(long id, byte[] name, long expected, String windowKind, long windowMillis) {
    super(id, name);
    this.expected = expected;
    this.windowKind = windowKind;
    this.windowMillis = windowMillis;
  }

  @Override
  String typeName() {
    return TYPE;
  }

  /** Writes one boolean per id from {@code args[from]} on: new (and now marked) or not. */
  abstract void firstSeen(byte[][] args, int from, Reply reply);

  /** Writes one boolean per id: marked (committed, or since the last commit) or not. */
  abstract void contains(byte[][] args, int from, Reply reply);

  /** Marks the ids; returns how many were new. */
  abstract long mark(byte[][] args, int from);

  /** Makes every mark so far durable, with the client's token, in one synced write. */
  abstract void commit(byte[] token) throws IOException;

  /** The token of the last commit, or {@code null}. */
  abstract byte[] lastToken();

  /**
   * This key space as of its last commit: the marks made since are dropped (the work they stand for
   * is after the token, and its worker redoes it). Returns the entry to use from now on.
   */
  abstract IdemEntry rollback() throws IOException;

  /** Ids committed (or held in the window) as of now. */
  abstract long size();

  /** Closes as a graceful shutdown does: commits when no token was ever given, else drops. */
  abstract void close() throws IOException;

  /** Closes as a kill would leave it (the key is being deleted). */
  abstract void abandon() throws IOException;

  /** The INFO fields, in order. */
  Map<String, Object> info() {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("Kind", windowKind == null ? "exact" : windowKind);
    m.put("Window ms", windowKind == null ? null : windowMillis);
    m.put("Expected", expected <= 0 ? null : expected);
    m.put("Size", size());
    m.put("Checked", checked);
    m.put("Kept", kept);
    m.put("Marks since commit", marksSinceCommit);
    m.put("Commits", commits);
    byte[] t = lastToken();
    m.put("Last token", t == null ? null : new String(t, java.nio.charset.StandardCharsets.UTF_8));
    return m;
  }
}
