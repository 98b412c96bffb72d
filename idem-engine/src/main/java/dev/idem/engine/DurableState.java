package dev.idem.engine;

import dev.idem.core.Fingerprinter;
import dev.idem.core.filter.FilterSnapshot;
import dev.idem.core.filter.FilterType;
import dev.idem.core.filter.Filters;
import dev.idem.core.filter.MembershipFilter;
import dev.idem.engine.run.JobIdentity;
import dev.idem.engine.run.StateDirectory;
import dev.idem.engine.run.StateMismatchException;
import dev.idem.engine.store.DirectoryLock;
import dev.idem.engine.store.JournalReplay;
import dev.idem.engine.store.PendingKeys;
import dev.idem.engine.store.RocksDbExactTier;
import dev.idem.engine.store.SnapshotPolicy;
import dev.idem.engine.store.StateStore;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The durable state of a {@link Deduplicator} opened on a directory: the keys marked up to the last
 * commit, and the filter that covers them, reopened in time that does not grow with their number.
 *
 * <p>Layout of the directory: {@code LOCK} (one process at a time); {@code store/}, a RocksDB
 * database whose {@code seen} column family holds every committed key, whose {@code journal} holds
 * the fingerprints of each commit since the last filter snapshot, and whose {@code meta} holds the
 * settings ({@code "settings"}) and the last commit ({@code "commit"}); {@code
 * filter-<sequence>.snap}, the filter as it was at that commit.
 *
 * <p>A commit writes the marks since the last one to {@code seen} and the journal, with the commit
 * record, in one synced RocksDB batch: after a crash, a commit is there entirely or not at all, and
 * the marks after the last commit are gone. Now and then ({@link SnapshotPolicy}) a commit first
 * writes a filter snapshot (atomically, before the batch that names it) and drops the journal
 * before it. Reopening maps the newest snapshot and replays the journal after it, or, if the
 * snapshot is damaged, rebuilds the filter from {@code seen} and says so: the filter always covers
 * every committed key, so its "certainly new" is never wrong.
 *
 * <p>Why it is long: opening (settings checked, snapshot mapped, journal replayed or the filter
 * rebuilt), committing and snapshotting are one protocol over the directory's files (above).
 */
final class DurableState implements AutoCloseable {

  private static final String SETTINGS = "settings";
  private static final String COMMIT = "commit";

  /**
   * Written once a new store holds its settings: a store directory without it (and without
   * RocksDB's CURRENT) is a creation that a crash cut short, not a damaged state.
   */
  static final String STORE_CREATED = "store.created";

  private static final int COMMIT_VERSION = 1;

  /** The last commit: its number, the snapshot that covers the filter, and the user's token. */
  private record CommitRecord(
      long sequence, long snapshotSequence, long journaledSinceSnapshot, long keys, byte[] token) {

    static final CommitRecord NONE = new CommitRecord(0, 0, 0, 0, null);

    byte[] encode() {
      int tokenLength = token == null ? -1 : token.length;
      ByteBuffer b =
          ByteBuffer.allocate(4 + 8 * 4 + 4 + Math.max(0, tokenLength))
              .putInt(COMMIT_VERSION)
              .putLong(sequence)
              .putLong(snapshotSequence)
              .putLong(journaledSinceSnapshot)
              .putLong(keys)
              .putInt(tokenLength);
      if (token != null) {
        b.put(token);
      }
      return b.array();
    }

    static CommitRecord decode(byte[] bytes, Path store) throws IOException {
      ByteBuffer b = ByteBuffer.wrap(bytes);
      if (bytes.length < 40 || b.getInt() != COMMIT_VERSION) {
        throw new IOException(store + ": the commit record is not one this version reads");
      }
      long sequence = b.getLong();
      long snapshot = b.getLong();
      long journaled = b.getLong();
      long keys = b.getLong();
      int tokenLength = b.getInt();
      byte[] token = tokenLength < 0 ? null : new byte[tokenLength];
      if (token != null) {
        b.get(token);
      }
      return new CommitRecord(sequence, snapshot, journaled, keys, token);
    }
  }

  private final Path dir;
  private final DirectoryLock lock;
  private final StateStore store;
  private final MembershipFilter filter;
  private final RocksDbExactTier exact;
  private final Fingerprinter fingerprinter;
  private final List<String> warnings;
  private final PendingKeys batch = new PendingKeys();
  private CommitRecord last;
  private long commits;

  private DurableState(
      Path dir,
      DirectoryLock lock,
      StateStore store,
      MembershipFilter filter,
      RocksDbExactTier exact,
      Fingerprinter fingerprinter,
      CommitRecord last,
      List<String> warnings) {
    this.dir = dir;
    this.lock = lock;
    this.store = store;
    this.filter = filter;
    this.exact = exact;
    this.fingerprinter = fingerprinter;
    this.last = last;
    this.warnings = List.copyOf(warnings);
  }

  /**
   * What the durable state in {@code dir} holds, read without disturbing it (RocksDB opened read
   * only, the lock left alone), or {@code null} when {@code dir} is not one.
   */
  static Deduplicator.StateDescription describe(Path dir) throws IOException {
    if (!Files.exists(dir.resolve(STORE_CREATED))) {
      return null;
    }
    Path storeDir = dir.resolve("store");
    Map<String, String> settings;
    CommitRecord last;
    try (StateStore store = StateStore.openReadOnly(storeDir, false)) {
      byte[] saved = store.meta(SETTINGS);
      settings = saved == null ? Map.of() : decode(saved);
      byte[] commit = store.meta(COMMIT);
      last = commit == null ? CommitRecord.NONE : CommitRecord.decode(commit, storeDir);
    }
    return new Deduplicator.StateDescription(settings, last.sequence(), last.keys(), last.token());
  }

  /**
   * Creates the state in {@code dir}, or reopens it.
   *
   * @param filterType the filter type, or {@code null} for the default
   * @param expectedKeys sizes the filter; {@code -1} when unknown
   * @param cacheBytes RocksDB's block cache: the resident part of the exact tier
   * @param savedSizing whether an existing state's own filter type, expected keys and rate replace
   *     the three given (which then size only a new state)
   * @throws IOException naming the directory when it is in use, belongs to something else, was
   *     written with other settings (each difference named), or is damaged
   */
  static DurableState open(
      Path dir,
      Fingerprinter fingerprinter,
      FilterType filterType,
      long expectedKeys,
      double fpp,
      KeyMode keyMode,
      long cacheBytes,
      boolean savedSizing)
      throws IOException {
    Files.createDirectories(dir);
    DirectoryLock lock = DirectoryLock.tryAcquire(dir);
    if (lock == null) {
      String holder = DirectoryLock.holder(dir);
      throw new IOException(
          dir
              + " is in use by another process"
              + (holder.isEmpty() ? "" : " (" + holder + ")")
              + ": one deduplicator per state "
              + "directory; close the other, or open another directory");
    }
    StateStore store = null;
    try {
      boolean full = keyMode == KeyMode.FULL_KEY;
      Path storeDir = dir.resolve("store");
      boolean exists =
          Files.exists(dir.resolve(STORE_CREATED))
              || Files.isRegularFile(storeDir.resolve("CURRENT"));
      if (!exists) {
        removeUnfinished(storeDir);
      }
      store =
          exists
              ? StateStore.openExisting(storeDir, cacheBytes, full)
              : StateStore.open(storeDir, cacheBytes, full);
      byte[] saved = store.meta(SETTINGS);
      Map<String, String> savedSettings = saved == null ? null : decode(saved);
      if (savedSizing && savedSettings != null && savedSettings.containsKey("filter type")) {
        // the filter as the state's creator sized it, read here rather than by a second open
        filterType = FilterType.byName(savedSettings.get("filter type"));
        String expected = savedSettings.getOrDefault("expected keys", "");
        expectedKeys = expected.matches("[0-9]+") ? Long.parseLong(expected) : -1;
        fpp = Double.parseDouble(savedSettings.get("false-positive rate"));
      }
      FilterType type = filterType != null ? filterType : Filters.defaultType(expectedKeys);
      Map<String, String> settings = settings(fingerprinter, type, expectedKeys, fpp, keyMode);
      if (savedSettings == null) {
        try (StateStore.Commit c = store.commit()) {
          c.meta(SETTINGS, encode(settings)).write(true);
        }
      } else {
        requireSame(dir, savedSettings, settings);
      }
      if (!Files.exists(dir.resolve(STORE_CREATED))) { // a new store, or one from before the mark
        StateDirectory.writeAtomically(dir, STORE_CREATED, new byte[0]);
      }
      byte[] commit = store.meta(COMMIT);
      CommitRecord last =
          commit == null ? CommitRecord.NONE : CommitRecord.decode(commit, storeDir);
      List<String> warnings = new ArrayList<>();
      MembershipFilter filter =
          restoreFilter(dir, store, last, fingerprinter, type, expectedKeys, fpp, warnings);
      RocksDbExactTier exact = RocksDbExactTier.forCheckpoints(store, full, last.keys());
      return new DurableState(dir, lock, store, filter, exact, fingerprinter, last, warnings);
    } catch (IOException | RuntimeException e) {
      try (Closer closer = new Closer()) {
        closer.register(lock);
        closer.register(store);
      } catch (Exception suppressed) {
        e.addSuppressed(suppressed);
      }
      throw e;
    }
  }

  /**
   * Deletes what a creation killed before RocksDB wrote its CURRENT file left: no commit can be in
   * it, since the settings are committed first and the marker written right after.
   */
  private static void removeUnfinished(Path storeDir) throws IOException {
    if (!Files.isDirectory(storeDir)) {
      return;
    }
    try (var files = Files.list(storeDir)) { // RocksDB keeps its files flat
      for (Path f : (Iterable<Path>) files::iterator) {
        Files.delete(f);
      }
    }
    Files.delete(storeDir);
  }

  /** The filter as of the last commit: its snapshot plus the journal after it. */
  private static MembershipFilter restoreFilter(
      Path dir,
      StateStore store,
      CommitRecord last,
      Fingerprinter fingerprinter,
      FilterType type,
      long expectedKeys,
      double fpp,
      List<String> warnings) {
    if (last.snapshotSequence() > 0) {
      Path file = snapshot(dir, last.snapshotSequence());
      try {
        FilterSnapshot s = FilterSnapshot.map(file);
        if (!s.fingerprinter().equals(fingerprinter) || s.filter().type() != type) {
          throw new IOException(
              file
                  + ": a "
                  + s.filter().type().displayName()
                  + " filter of "
                  + s.fingerprinter()
                  + ", not the state's "
                  + type.displayName()
                  + " of "
                  + fingerprinter);
        }
        JournalReplay.replay(store, last.snapshotSequence() + 1, last.sequence(), s.filter(), null);
        return s.filter();
      } catch (IOException e) {
        warnings.add(
            "filter snapshot unusable ("
                + e.getMessage()
                + "); rebuilt the filter from "
                + "the exact tier");
      }
    }
    // unknown key counts grow from at least the default capacity, as a new state's filter does:
    // sized for the few keys a first commit held, a scalable filter would add a layer per doubling
    MembershipFilter filter =
        Filters.forKeys(
            type, expectedKeys, Math.max(last.keys(), Filters.UNKNOWN_KEYS_CAPACITY), fpp);
    if (last.snapshotSequence() > 0) {
      store.forEachSeen((hi, lo, key) -> filter.put(hi, lo));
    } else {
      JournalReplay.replay(store, 1, last.sequence(), filter, null);
    }
    return filter;
  }

  MembershipFilter filter() {
    return filter;
  }

  RocksDbExactTier exact() {
    return exact;
  }

  /** Warnings of the reopen (a damaged snapshot that was rebuilt). */
  List<String> warnings() {
    return warnings;
  }

  /** The token of the last commit, or {@code null}. */
  byte[] lastCommittedToken() {
    return last.token() == null ? null : last.token().clone();
  }

  /** Commits since this state was opened. */
  long commits() {
    return commits;
  }

  /**
   * Makes every mark so far durable, with {@code token}, in one synced write.
   *
   * @throws IOException naming the file when a snapshot cannot be written
   */
  void commit(byte[] token) throws IOException {
    batch.clear();
    exact.drainPending(batch);
    long sequence = last.sequence() + 1;
    long journaled = last.journaledSinceSnapshot() + batch.size();
    long snapshotSequence = last.snapshotSequence();
    boolean snapshot = SnapshotPolicy.due(journaled, filter.bitSize() / 8);
    if (snapshot) {
      // written before the batch that names it: a crash in between leaves an unnamed file
      FilterSnapshot.write(snapshot(dir, sequence), filter, fingerprinter);
      snapshotSequence = sequence;
      journaled = 0;
    }
    CommitRecord next =
        new CommitRecord(
            sequence,
            snapshotSequence,
            journaled,
            last.keys() + batch.size(),
            token == null ? null : token.clone());
    try (StateStore.Commit c = store.commit()) {
      c.seen(batch);
      if (snapshot) {
        c.dropJournalBefore(sequence); // `seen` holds every key, the snapshot the filter
      } else {
        c.journal(sequence, batch);
      }
      c.meta(COMMIT, next.encode()).write(true);
    }
    last = next;
    commits++;
    if (snapshot) {
      deleteSnapshotsExcept(sequence);
    }
  }

  /**
   * Releases the directory, first committing what is pending when the commits carry no token. With
   * a token, the marks after the last commit are dropped, as a crash drops them: committed under
   * the last token, which names an output position from before them, they would make a resumed
   * caller cut back the output they stand for and then skip it.
   */
  @Override
  public void close() throws IOException {
    try (Closer closer = new Closer()) {
      closer.register(lock);
      closer.register(store);
      closer.register(exact::close);
      if (last.token() == null) {
        commit(null);
      }
      store.flushForReopen(); // the next open (the next run over a history) starts at once
    } catch (IOException | RuntimeException e) {
      throw e;
    } catch (Exception e) {
      throw new IOException(dir + ": closing failed", e);
    }
  }

  /**
   * Releases the directory as a kill would leave it: nothing committed, nothing flushed (for a job
   * that failed, and for the crash properties).
   */
  void abandon() throws IOException {
    try (Closer closer = new Closer()) {
      closer.register(lock);
      closer.register(store);
    } catch (IOException | RuntimeException e) {
      throw e;
    } catch (Exception e) {
      throw new IOException(e);
    }
  }

  private static Path snapshot(Path dir, long sequence) {
    return dir.resolve("filter-" + sequence + ".snap");
  }

  private void deleteSnapshotsExcept(long keep) throws IOException {
    try (DirectoryStream<Path> files = Files.newDirectoryStream(dir, "{filter-*.snap,.filter-*}")) {
      for (Path f : files) {
        if (!f.getFileName().toString().equals("filter-" + keep + ".snap")) {
          Files.deleteIfExists(f);
        }
      }
    }
  }

  /** What a reopen must match: how keys are hashed and what the filter is. */
  private static Map<String, String> settings(
      Fingerprinter fingerprinter,
      FilterType type,
      long expectedKeys,
      double fpp,
      KeyMode keyMode) {
    Map<String, String> s = new LinkedHashMap<>();
    s.put("fingerprinter", fingerprinter.toString());
    s.put("filter type", type.displayName());
    s.put("expected keys", expectedKeys < 0 ? "(not given)" : Long.toString(expectedKeys));
    s.put("false-positive rate", Double.toString(fpp));
    s.put("key mode", keyMode.name());
    return s;
  }

  /** Refuses a store written with other settings, naming each, as every job's state is. */
  private static void requireSame(Path dir, Map<String, String> saved, Map<String, String> now)
      throws IOException {
    List<JobIdentity.Difference> differences =
        new JobIdentity(DURABLE_SET, List.of(), saved)
            .differencesFrom(new JobIdentity(DURABLE_SET, List.of(), now), "this deduplicator");
    if (!differences.isEmpty()) {
      throw new StateMismatchException(dir, DURABLE_SET, differences);
    }
  }

  /** The kind of state a durable deduplicator keeps, in its identity. */
  static final String DURABLE_SET = "durable-set";

  private static byte[] encode(Map<String, String> settings) {
    StringBuilder sb = new StringBuilder();
    settings.forEach((k, v) -> sb.append(k).append('=').append(v).append('\n'));
    return sb.toString().getBytes(StandardCharsets.UTF_8);
  }

  private static Map<String, String> decode(byte[] bytes) {
    Map<String, String> m = new LinkedHashMap<>();
    for (String line : new String(bytes, StandardCharsets.UTF_8).split("\n")) {
      int eq = line.indexOf('=');
      if (eq > 0) {
        m.put(line.substring(0, eq), line.substring(eq + 1));
      }
    }
    return m;
  }
}
