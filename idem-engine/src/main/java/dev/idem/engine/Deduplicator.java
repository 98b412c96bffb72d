package dev.idem.engine;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import dev.idem.core.Fingerprint;
import dev.idem.core.Fingerprinter;
import dev.idem.core.filter.FilterType;
import dev.idem.core.filter.Filters;
import dev.idem.core.filter.MembershipFilter;
import dev.idem.engine.store.ExactStore;
import dev.idem.engine.store.ExactStores;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Objects;

/**
 * Answers "is this the first time I see this key?" for a stream of keys, exactly (by default)
 * and cheaply: {@link #firstSeen} is true exactly once per distinct key.
 *
 * <p>Tiers, cheapest first: (1) a filter, which answers "certainly new" for almost every new key
 * without touching anything else; (2) optionally a small cache of recently seen fingerprints,
 * which settles hot duplicates; (3) the exact tier, consulted only on the filter's "maybe" — so
 * per new key it is read with probability about the filter's false-positive rate.
 *
 * <pre>{@code
 * try (Deduplicator d = Idem.deduplicator().expectedKeys(10_000_000).build()) {
 *   for (String url : urls) {
 *     if (d.firstSeen(url)) emit(url);
 *   }
 * }
 * }</pre>
 *
 * <p>Not thread-safe: one thread checks, in the order that decides which occurrence is first.
 */
public final class Deduplicator implements AutoCloseable {

  private final MembershipFilter filter;
  private final ExactStore exact;
  private final Fingerprinter fingerprinter;
  private final DedupMode mode;
  private final KeyMode keyMode;
  private final Cache<Fingerprint, Boolean> recent;
  private long checked;
  private long kept;
  private long duplicates;
  private long exactLookups;
  private long rescued;
  private long recentHits;

  private Deduplicator(MembershipFilter filter, ExactStore exact, Fingerprinter fingerprinter,
      DedupMode mode, KeyMode keyMode, Cache<Fingerprint, Boolean> recent) {
    this.filter = filter;
    this.exact = exact;
    this.fingerprinter = fingerprinter;
    this.mode = mode;
    this.keyMode = keyMode;
    this.recent = keyMode == KeyMode.FULL_KEY ? null : recent;
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

  /** The exact tier, or {@code null} in approximate mode. */
  public ExactStore exactStore() {
    return exact;
  }

  public DedupMode mode() {
    return mode;
  }

  public KeyMode keyMode() {
    return keyMode;
  }

  /** Closes the exact tier (writing what a RocksDB tier holds in memory). */
  @Override
  public void close() {
    if (exact != null) {
      exact.close();
    }
  }

  /**
   * Configures a {@link Deduplicator}; see {@link Idem#deduplicator()}. Each setter checks its
   * value where it is set; {@link #build} checks that they fit together.
   */
  public static final class Builder {
    private long expectedKeys = -1;
    private double fpp = 0.001;
    private FilterType filterType;
    private MembershipFilter filter;
    private ExactStore exactStore;
    private DedupMode mode = DedupMode.EXACT;
    private KeyMode keyMode = KeyMode.FINGERPRINT;
    private Path rocksDbDirectory;
    private long rocksDbCacheBytes = 64L << 20;
    private long recentSize;
    private Duration recentTtl;
    private Fingerprinter fingerprinter = Fingerprinter.xxh3();

    Builder() {}

    /**
     * Distinct keys expected. Sizes the filter (and the in-memory exact tier). Unknown: leave
     * it out, and a scalable filter grows from 1 M keys.
     */
    public Builder expectedKeys(long n) {
      if (n <= 0) {
        throw new IllegalArgumentException("expectedKeys must be positive, got " + n);
      }
      this.expectedKeys = n;
      return this;
    }

    /** The filter's false-positive rate (default 0.001). */
    public Builder falsePositiveRate(double p) {
      if (!(p > 0 && p < 1)) {
        throw new IllegalArgumentException("falsePositiveRate must be in (0, 1), got " + p);
      }
      this.fpp = p;
      return this;
    }

    /** The filter type (default: blocked, or scalable when the key count is not given). */
    public Builder filterType(FilterType type) {
      this.filterType = Objects.requireNonNull(type);
      return this;
    }

    /**
     * Use {@code filter} as the filter tier, as it is (for example one restored from a snapshot):
     * it must already hold every key the exact tier holds. Replaces {@link #filterType}, {@link
     * #expectedKeys} and {@link #falsePositiveRate} for the filter.
     */
    public Builder filter(MembershipFilter filter) {
      this.filter = Objects.requireNonNull(filter);
      return this;
    }

    /**
     * Use {@code store} as the exact tier, as it is (for example one a job restored from its
     * state); the deduplicator closes it. Replaces {@link #inMemory} and {@link #rocksDb}.
     */
    public Builder exactStore(ExactStore store) {
      this.exactStore = Objects.requireNonNull(store);
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

    /** Keep the exact tier in memory (the default). */
    public Builder inMemory() {
      this.rocksDbDirectory = null;
      return this;
    }

    /** Keep the exact tier in a RocksDB database in {@code directory}, with a block cache. */
    public Builder rocksDb(Path directory, long cacheBytes) {
      this.rocksDbDirectory = Objects.requireNonNull(directory);
      this.rocksDbCacheBytes = cacheBytes;
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
     * The deduplicator.
     *
     * @throws IllegalStateException when the settings do not fit together (an exact store in
     *     approximate mode)
     * @throws UncheckedIOException when a RocksDB exact tier cannot be opened
     */
    public Deduplicator build() {
      if (mode == DedupMode.APPROXIMATE && exactStore != null) {
        throw new IllegalStateException("approximate mode keeps no exact tier: drop "
            + "exactStore(...), or use mode(EXACT)");
      }
      MembershipFilter f = filter != null ? filter
          : Filters.forKeys(filterType, expectedKeys, 0, fpp);
      ExactStore exact = mode == DedupMode.APPROXIMATE ? null
          : exactStore != null ? exactStore : newExactStore();
      Cache<Fingerprint, Boolean> recent = null;
      if (recentSize > 0) {
        Caffeine<Object, Object> cache = Caffeine.newBuilder().maximumSize(recentSize);
        recent = (recentTtl == null ? cache : cache.expireAfterAccess(recentTtl)).build();
      }
      return new Deduplicator(f, exact, fingerprinter, mode, keyMode, recent);
    }

    private ExactStore newExactStore() {
      boolean full = keyMode == KeyMode.FULL_KEY;
      if (rocksDbDirectory == null) {
        return ExactStores.inMemory(Math.max(expectedKeys, 1 << 16), full);
      }
      try {
        return ExactStores.inRocksDb(rocksDbDirectory, rocksDbCacheBytes, full);
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
  }
}
