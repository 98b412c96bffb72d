package dev.idem.core.filter;

import java.io.IOException;
import java.nio.ByteBuffer;

/**
 * The one place where a {@link FilterType} becomes a filter: a new one for {@code n} keys at rate
 * {@code p} ({@link #create}), the one idem picks when the caller names no type ({@link #forKeys}),
 * and a saved one rebuilt from its snapshot (reached through {@link FilterSnapshot}, which reads
 * files and byte arrays alike).
 *
 * <p>Types with options beyond {@code n} and {@code p} (counter width, fingerprint width, slices)
 * are built with their own factories; this class gives each type its defaults.
 */
public final class Filters {

  /**
   * Keys a filter is sized for when nobody knows how many will come: a scalable filter starts here
   * and grows, a fixed-size one holds its rate up to here.
   */
  public static final long UNKNOWN_KEYS_CAPACITY = 1_000_000;

  private Filters() {}

  /**
   * A new, empty filter of {@code type} for {@code n} keys at rate {@code p}, with the type's
   * defaults: a scalable filter starts with capacity {@code n} and keeps its compound rate at or
   * below {@code p}; a counting filter has 4-bit counters; an exact set ignores {@code p}.
   */
  public static MembershipFilter create(FilterType type, long n, double p) {
    return switch (type) {
      case BLOOM -> BloomFilter.create(n, p);
      case BLOCKED -> BlockedBloomFilter.create(n, p);
      case PARTITIONED -> PartitionedBloomFilter.create(n, p);
      case SCALABLE ->
          ScalableBloomFilter.builder().initialCapacity(n).falsePositiveRate(p).build();
      case COUNTING -> CountingBloomFilter.create(n, p);
      case CUCKOO -> CuckooFilter.create(n, p);
      case EXACT -> FingerprintSet.withExpectedSize(n);
      case EXACT_STRIPED -> StripedFingerprintSet.withExpectedSize(n);
    };
  }

  /**
   * The type idem uses when none is asked for: {@link FilterType#BLOCKED} when the number of
   * distinct keys is known ({@code expectedKeys > 0}), one cache miss per key; {@link
   * FilterType#SCALABLE} when it is not, because a fixed-size filter overfilled by an unknown
   * stream misses its rate without a word.
   */
  public static FilterType defaultType(long expectedKeys) {
    return expectedKeys > 0 ? FilterType.BLOCKED : FilterType.SCALABLE;
  }

  /**
   * A new filter for a stream of {@code expectedKeys} distinct keys ({@code <= 0}: unknown).
   *
   * @param type the type asked for, or {@code null} for {@link #defaultType(long)}
   * @param capacityGuess keys to size for when {@code expectedKeys} is unknown, such as an upper
   *     bound estimated from the input's size; {@code <= 0} when there is none, which sizes for
   *     {@link #UNKNOWN_KEYS_CAPACITY}. A striped exact set takes it as a record count and grows to
   *     the distinct keys ({@link StripedFingerprintSet#forRecords})
   */
  public static MembershipFilter forKeys(
      FilterType type, long expectedKeys, long capacityGuess, double p) {
    if (expectedKeys <= 0 && capacityGuess > 0 && type == FilterType.EXACT_STRIPED) {
      return StripedFingerprintSet.forRecords(capacityGuess); // grows to what the keys need
    }
    long n =
        expectedKeys > 0 ? expectedKeys : capacityGuess > 0 ? capacityGuess : UNKNOWN_KEYS_CAPACITY;
    return create(type != null ? type : defaultType(expectedKeys), n, p);
  }

  /**
   * Rebuilds a filter of {@code type} from a snapshot's parameter block and payload; the inverse of
   * each type's {@link SnapshotSupport}. {@link FilterSnapshot} is the public way in.
   */
  static MembershipFilter restore(
      FilterType type, ByteBuffer parameters, long count, SnapshotSupport.Payload payload)
      throws IOException {
    return switch (type) {
      case BLOOM, BLOCKED, PARTITIONED ->
          AbstractBloomFilter.restore(type, parameters, count, payload);
      case SCALABLE -> ScalableBloomFilter.restore(parameters, count, payload);
      case COUNTING -> CountingBloomFilter.restore(parameters, count, payload);
      case CUCKOO -> CuckooFilter.restore(parameters, count, payload);
      case EXACT -> FingerprintSet.restore(parameters, count, payload);
      case EXACT_STRIPED -> StripedFingerprintSet.restore(parameters, count, payload);
    };
  }
}
