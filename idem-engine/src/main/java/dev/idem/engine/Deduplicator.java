package dev.idem.engine;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import dev.idem.core.Fingerprint;
import dev.idem.core.Fingerprinter;
import dev.idem.core.filter.FilterType;
import dev.idem.core.filter.Filters;
import dev.idem.core.filter.FingerprintSet;
import dev.idem.core.filter.MembershipFilter;
import dev.idem.engine.store.ExactTier;
import dev.idem.engine.store.ExactTiers;
import dev.idem.engine.store.RocksDbPresence;
import dev.idem.engine.store.TierAssembly;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Answers "is this the first time I see this key?" for a stream of keys, exactly (by default) and
 * cheaply: {@link #firstSeen} is true exactly once per distinct key. Opened on a directory ({@link
 * Builder#state}, {@link Builder#open}) it is a {@link DurableDeduplicator}: its {@code commit}
 * makes the keys marked so far survive a crash, and a reopen answers for them at once.
 *
 * <p>RestoredTiers, cheapest first: (1) a filter, which answers "certainly new" for almost every
 * new key without touching anything else; (2) optionally a small cache of recently seen
 * fingerprints, which settles hot duplicates; (3) the exact tier, consulted only on the filter's
 * "maybe" — so per new key it is read with probability about the filter's false-positive rate. Kept
 * in memory with fingerprints (the default), the exact tier is a {@link FingerprintSet} and needs
 * no filter in front: one probe of the set answers for every key, where a filter would add a cache
 * miss per key and save none.
 *
 * <pre>{@code
 * try (Deduplicator d = Idem.deduplicator().expectedKeys(10_000_000).build()) {
 *   for (String url : urls) {
 *     if (d.firstSeen(url)) emit(url);
 *   }
 * }
 * }</pre>
 *
 * <p>A pipeline worker that must not redo, nor skip, work after a crash checks before it works and
 * marks after its result is durable, committing its own output position as the token:
 *
 * <pre>{@code
 * try (DurableDeduplicator done =
 *     Idem.deduplicator().expectedKeys(100_000_000).state(dir).open()) {
 *   out.truncate(tokenAsLong(done.lastCommittedToken()));   // back to the last commit
 *   for (Doc doc : docs) {
 *     if (done.contains(doc.id())) continue;
 *     out.write(features(doc));
 *     done.markDone(doc.id());
 *     if (++n % 1000 == 0) { out.sync(); done.commit(token(out.position())); }
 *   }
 * }
 * }</pre>
 *
 * <p>Marks after the last commit are lost in a crash, by contract: that is what lets one commit
 * cost one synced write for any number of marks (see {@link DurableDeduplicator}).
 *
 * <p>Not thread-safe: one thread checks, in the order that decides which occurrence is first.
 *
 * <p>Why it is long: it is the library's front door: the interface, the builder with a checking
 * setter per option and the Javadoc a user reads, and the wiring of the tiers behind {@code
 * build()} and {@code open()}.
 */
public class Deduplicator implements AutoCloseable {

  static {
    // the engine's jobs hand restored tiers over through this, which is not public API
    TierAssembly.register(
        new TierAssembly.Factory() {
          @Override
          public Deduplicator assemble(
              MembershipFilter filter,
              ExactTier exact,
              Fingerprinter fingerprinter,
              DedupMode mode,
              KeyMode keyMode,
              long recentCacheSize) {
            Builder b = new Builder().fingerprinter(fingerprinter).mode(mode).keyMode(keyMode);
            b.filter = filter;
            b.exactTier = exact;
            if (recentCacheSize > 0) {
              b.recentCache(recentCacheSize);
            }
            return b.build();
          }

          @Override
          public ExactTier exactTier(Deduplicator d) {
            return d.exact;
          }

          @Override
          public DurableDeduplicator openWithSavedSizing(Builder b) throws IOException {
            b.savedSizing = true;
            return b.open();
          }
        });
  }

  private final MembershipFilter filter;
  private final ExactTier exact;
  private final Fingerprinter fingerprinter;
  private final DedupMode mode;
  private final KeyMode keyMode;
  private final Cache<Fingerprint, Boolean> recent;

  /** The filter is an exact set and there is no exact tier: the set's answer is final. */
  private final boolean setAlone;

  private long checked;
  private long kept;
  private long duplicates;
  private long exactLookups;
  private long rescued;
  private long recentHits;

  Deduplicator(
      MembershipFilter filter,
      ExactTier exact,
      Fingerprinter fingerprinter,
      DedupMode mode,
      KeyMode keyMode,
      Cache<Fingerprint, Boolean> recent) {
    this.filter = filter;
    this.exact = exact;
    this.fingerprinter = fingerprinter;
    this.mode = mode;
    this.keyMode = keyMode;
    this.recent = keyMode == KeyMode.FULL_KEY ? null : recent;
    this.setAlone = exact == null && isExactSet(filter.type());
    if (mode == DedupMode.EXACT && exact == null && !setAlone) {
      throw new IllegalStateException(
          "exact mode needs an exact tier behind a "
              + filter.type().displayName()
              + " filter, or an exact set as the filter");
    }
  }

  private static boolean isExactSet(FilterType type) {
    return type == FilterType.EXACT || type == FilterType.EXACT_STRIPED;
  }

  /** True the first time {@code key} (after normalisation) is given, false every later time. */
  public boolean firstSeen(byte[] key) {
    Fingerprint f = fingerprinter.fingerprint(key);
    return firstSeen(f.hi(), f.lo(), keyMode == KeyMode.FULL_KEY ? normalized(key) : null);
  }

  /** As {@link #firstSeen(byte[])} for the UTF-8 bytes of {@code key}. */
  public boolean firstSeen(CharSequence key) {
    return firstSeen(key.toString().getBytes(StandardCharsets.UTF_8));
  }

  private byte[] normalized(byte[] key) {
    return fingerprinter.normalizer().normalize(key, 0, key.length);
  }

  /**
   * The check on a fingerprint computed by the caller (with {@link #fingerprinter()}).
   *
   * @param key the normalised key's bytes in full-key mode, else {@code null}
   */
  public boolean firstSeen(long hi, long lo, byte[] key) {
    checked++;
    if (setAlone) {
      if (filter.put(hi, lo)) {
        kept++;
        return true;
      }
      duplicates++;
      return false;
    }
    if (!filter.mightContain(hi, lo)) {
      filter.put(hi, lo);
      if (exact != null) {
        exact.addNew(hi, lo, key);
      }
      kept++;
      return true;
    }
    if (mode == DedupMode.APPROXIMATE) {
      duplicates++;
      return false;
    }
    Fingerprint f = recent != null ? new Fingerprint(hi, lo) : null;
    if (f != null && recent.getIfPresent(f) != null) {
      recentHits++;
      duplicates++;
      return false;
    }
    exactLookups++;
    boolean added = exact.addIfAbsent(hi, lo, key);
    if (f != null) {
      recent.put(f, Boolean.TRUE);
    }
    if (added) {
      rescued++;
      kept++;
      return true;
    }
    duplicates++;
    return false;
  }

  /**
   * True when {@code key} was marked (by {@link #firstSeen} or {@link #markDone}): committed, or
   * marked since this deduplicator was opened. Marks nothing.
   */
  public boolean contains(CharSequence key) {
    return contains(key.toString().getBytes(StandardCharsets.UTF_8));
  }

  /** As {@link #contains(CharSequence)} for a key's bytes. */
  public boolean contains(byte[] key) {
    Fingerprint f = fingerprinter.fingerprint(key);
    return contains(f.hi(), f.lo(), keyMode == KeyMode.FULL_KEY ? normalized(key) : null);
  }

  private boolean contains(long hi, long lo, byte[] key) {
    if (!filter.mightContain(hi, lo)) {
      return false;
    }
    if (exact == null) {
      return true; // approximate: a "maybe" is taken for seen
    }
    exactLookups++;
    return exact.contains(hi, lo, key);
  }

  /**
   * Marks {@code key} as done: from now on {@link #contains} is true for it, and after the next
   * {@link DurableDeduplicator#commit} (of a durable one) it stays so across a crash. Returns
   * whether it was new (as {@link #firstSeen}, which is the same call).
   */
  public boolean markDone(CharSequence key) {
    return firstSeen(key);
  }

  /** For each key in order, {@link #contains}: the batch form, its memory reads overlapped. */
  public boolean[] contains(List<? extends CharSequence> keys) {
    return forEach(keys, false);
  }

  /**
   * For each key in order, {@link #firstSeen} (marking it): the batch form, its memory reads
   * overlapped. A key twice in one batch is new at most once.
   */
  public boolean[] firstSeen(List<? extends CharSequence> keys) {
    return forEach(keys, true);
  }

  private boolean[] forEach(List<? extends CharSequence> keys, boolean mark) {
    boolean[] answers = new boolean[keys.size()];
    int chunk = MembershipFilter.PREFETCH_CHUNK;
    long[] fps = new long[2 * chunk];
    byte[][] full = new byte[chunk][];
    for (int from = 0; from < keys.size(); from += chunk) {
      int n = Math.min(chunk, keys.size() - from);
      for (int i = 0; i < n; i++) {
        byte[] key = keys.get(from + i).toString().getBytes(StandardCharsets.UTF_8);
        Fingerprint f = fingerprinter.fingerprint(key);
        fps[2 * i] = f.hi();
        fps[2 * i + 1] = f.lo();
        full[i] = keyMode == KeyMode.FULL_KEY ? normalized(key) : null;
      }
      prefetch(fps, 0, n);
      for (int i = 0; i < n; i++) {
        answers[from + i] =
            mark
                ? firstSeen(fps[2 * i], fps[2 * i + 1], full[i])
                : contains(fps[2 * i], fps[2 * i + 1], full[i]);
      }
    }
    return answers;
  }

  /**
   * A hint that keys {@code from} to {@code to} of {@code fingerprints} (hi, lo pairs) are checked
   * next: their filter blocks and exact-set slots are read now, a batch's cache misses together.
   */
  public void prefetch(long[] fingerprints, int from, int to) {
    filter.prefetch(fingerprints, from, to);
    if (exact != null) {
      exact.prefetch(fingerprints, from, to);
    }
  }

  /** Counts since this deduplicator was built. */
  public DedupStats stats() {
    return new DedupStats(checked, kept, duplicates, exactLookups, rescued, recentHits);
  }

  /** How keys become fingerprints here. */
  public Fingerprinter fingerprinter() {
    return fingerprinter;
  }

  /** The filter tier. */
  public MembershipFilter filter() {
    return filter;
  }

  public DedupMode mode() {
    return mode;
  }

  public KeyMode keyMode() {
    return keyMode;
  }

  /** Closes the exact tier. */
  @Override
  public void close() {
    if (exact != null) {
      exact.close();
    }
  }

  /**
   * What a durable deduplicator's state directory holds ({@link #describeState}).
   *
   * @param settings what a reopen must match: fingerprinter, filter type, expected keys, rate, key
   *     mode
   * @param commits the commits made, in every session
   * @param keys the keys committed
   * @param token the last commit's token, or {@code null}
   */
  public record StateDescription(
      Map<String, String> settings, long commits, long keys, byte[] token) {}

  /**
   * Describes the durable state in {@code directory} without opening it for writing (it may be in
   * use), or returns {@code null} when the directory holds none.
   */
  public static StateDescription describeState(Path directory) throws IOException {
    return DurableState.describe(directory);
  }

  /**
   * Configures a {@link Deduplicator}; see {@link Idem#deduplicator()}. Each setter checks its
   * value where it is set; {@link #build} and {@link #open} check that they fit together.
   */
  public static final class Builder {
    private long expectedKeys = -1;
    private double fpp = 0.001;
    private FilterType filterType;

    /** RestoredTiers a job restored (TierAssembly), used as they are; not set through the API. */
    private MembershipFilter filter;

    private ExactTier exactTier;
    private DedupMode mode = DedupMode.EXACT;
    private KeyMode keyMode = KeyMode.FINGERPRINT;
    private long rocksDbCacheBytes = 64L << 20;
    private Path stateDirectory;

    /** An existing state keeps its own filter sizing (TierAssembly); not set through the API. */
    private boolean savedSizing;

    private long recentSize;
    private Duration recentTtl;
    private Fingerprinter fingerprinter = Fingerprinter.xxh3();

    Builder() {}

    /**
     * Distinct keys expected. Sizes the filter (and the in-memory exact tier). Unknown: leave it
     * out, and a scalable filter grows from 1 M keys.
     */
    public Builder expectedKeys(long n) {
      if (n <= 0) {
        throw new IllegalArgumentException("expectedKeys must be positive, got " + n);
      }
      this.expectedKeys = n;
      return this;
    }

    /** The filter's false-positive rate (default 0.001), where there is a filter. */
    public Builder falsePositiveRate(double p) {
      if (!(p > 0 && p < 1)) {
        throw new IllegalArgumentException("falsePositiveRate must be in (0, 1), got " + p);
      }
      this.fpp = p;
      return this;
    }

    /**
     * The filter type. Default: none in memory with fingerprints, where the exact set answers
     * alone; in front of a durable exact tier, blocked, or scalable when the key count is not
     * given.
     */
    public Builder filterType(FilterType type) {
      this.filterType = Objects.requireNonNull(type);
      return this;
    }

    /** Exact (default) or approximate. */
    public Builder mode(DedupMode m) {
      this.mode = Objects.requireNonNull(m);
      return this;
    }

    /** Fingerprints (default) or full keys in the exact tier. */
    public Builder keyMode(KeyMode m) {
      this.keyMode = Objects.requireNonNull(m);
      return this;
    }

    /**
     * Keep the keys in {@code directory}, durably ({@link #open}): created on the first open,
     * reopened on the next ones with the keys of the last {@link DurableDeduplicator#commit}. The
     * exact tier is a RocksDB database there, whose resident part is {@link #maxMemory}; the filter
     * is snapshotted beside it. A reopen needs the same settings (hashing, filter, key mode); one
     * process at a time.
     */
    public Builder state(Path directory) {
      this.stateDirectory = Objects.requireNonNull(directory);
      return this;
    }

    /**
     * The memory the exact tier may keep resident (RocksDB's block cache), at least 8 MiB (default
     * 64 MiB); the filter comes on top.
     */
    public Builder maxMemory(long bytes) {
      if (bytes < (8 << 20)) {
        throw new IllegalArgumentException("maxMemory must be at least 8 MiB, got " + bytes);
      }
      this.rocksDbCacheBytes = bytes;
      return this;
    }

    /** Add the recent tier: up to {@code size} fingerprints, each forgotten after {@code ttl}. */
    public Builder recentCache(long size, Duration ttl) {
      recentCache(size);
      this.recentTtl = Objects.requireNonNull(ttl);
      return this;
    }

    /** Add the recent tier: the {@code size} fingerprints seen most recently. */
    public Builder recentCache(long size) {
      if (size < 1) {
        throw new IllegalArgumentException("recent cache size must be positive, got " + size);
      }
      this.recentSize = size;
      return this;
    }

    /** How keys become fingerprints (seed, normaliser). */
    public Builder fingerprinter(Fingerprinter f) {
      this.fingerprinter = Objects.requireNonNull(f);
      return this;
    }

    /**
     * The deduplicator, in memory.
     *
     * @throws IllegalStateException when a {@link #state} directory was given: that is opened with
     *     {@link #open}
     */
    public Deduplicator build() {
      if (stateDirectory != null) {
        throw new IllegalStateException(
            "a deduplicator with a state directory is opened, not built: call open(), which "
                + "returns a DurableDeduplicator");
      }
      if (mode == DedupMode.APPROXIMATE && exactTier != null) {
        throw new IllegalStateException(
            "approximate mode keeps no exact tier, and one was handed over");
      }
      MembershipFilter f =
          filter != null
              ? filter
              : setAloneInMemory()
                  ? FingerprintSet.withExpectedSize(Math.max(expectedKeys, 1 << 16))
                  : Filters.forKeys(filterType, expectedKeys, 0, fpp);
      boolean setAlone =
          exactTier == null && keyMode == KeyMode.FINGERPRINT && isExactSet(f.type());
      ExactTier exact =
          mode == DedupMode.APPROXIMATE || setAlone
              ? null
              : exactTier != null ? exactTier : newExactStore();
      return new Deduplicator(
          f, exact, fingerprinter, mode, keyMode, setAlone ? null : recentCache());
    }

    /**
     * Opens the durable deduplicator of {@link #state}.
     *
     * @throws IOException naming the directory when it is in use, was written with other settings
     *     (each named), or is damaged
     * @throws IllegalStateException without a {@link #state} directory, or in approximate mode
     */
    public DurableDeduplicator open() throws IOException {
      if (stateDirectory == null) {
        throw new IllegalStateException(
            "open() opens a state directory: give state(dir) first, or build() one in memory");
      }
      if (mode != DedupMode.EXACT) {
        throw new IllegalStateException(
            "a durable state keeps its keys exactly: drop mode(APPROXIMATE)");
      }
      RocksDbPresence.require("a durable deduplicator (state(dir))");
      DurableState state =
          DurableState.open(
              stateDirectory,
              fingerprinter,
              filterType,
              expectedKeys,
              fpp,
              keyMode,
              rocksDbCacheBytes,
              savedSizing);
      return new DurableDeduplicator(
          state.filter(), state.exact(), fingerprinter, mode, keyMode, recentCache(), state);
    }

    /**
     * Whether the default in-memory exact tier applies, which in fingerprint mode is a fingerprint
     * set answering alone: a filter or a recent cache in front of it would only add probes.
     */
    private boolean setAloneInMemory() {
      return mode == DedupMode.EXACT
          && keyMode == KeyMode.FINGERPRINT
          && exactTier == null
          && (filterType == null || filterType == FilterType.EXACT);
    }

    private Cache<Fingerprint, Boolean> recentCache() {
      if (recentSize == 0) {
        return null;
      }
      Caffeine<Object, Object> cache = Caffeine.newBuilder().maximumSize(recentSize);
      return (recentTtl == null ? cache : cache.expireAfterAccess(recentTtl)).build();
    }

    private ExactTier newExactStore() {
      return ExactTiers.inMemory(Math.max(expectedKeys, 1 << 16), keyMode == KeyMode.FULL_KEY);
    }
  }
}
