package dev.idem.core.filter;

import java.util.Arrays;
import java.util.stream.Collectors;

/**
 * The kinds of filter idem builds, as data: the id stored in snapshot headers (never reused), the
 * name used on the command line, and the sizing of the fixed-size Bloom types. {@link Filters}
 * builds and restores them.
 */
public enum FilterType {
  /** {@link BloomFilter}. */
  BLOOM(1, "bloom"),
  /** {@link BlockedBloomFilter}. */
  BLOCKED(2, "blocked"),
  /** {@link PartitionedBloomFilter}. */
  PARTITIONED(3, "partitioned"),
  /** {@link ScalableBloomFilter}: layers of blocked filters, for streams of unknown size. */
  SCALABLE(4, "scalable"),
  /** {@link CountingBloomFilter}: counters instead of bits, so keys can be removed. */
  COUNTING(5, "counting"),
  /** {@link CuckooFilter}: fingerprints in buckets, removable, fewer bits than Bloom. */
  CUCKOO(6, "cuckoo"),
  /** {@link FingerprintSet}: exact set of fingerprints. */
  EXACT(7, "exact"),
  /** {@link StripedFingerprintSet}: an exact set in stripes that threads can fill at once. */
  EXACT_STRIPED(8, "exact-striped");

  private final int id;
  private final String displayName;

  FilterType(int id, String displayName) {
    this.id = id;
    this.displayName = displayName;
  }

  /** The number written to snapshot headers. */
  public int id() {
    return id;
  }

  /** The lower-case name used on the command line ({@code --type blocked}). */
  public String displayName() {
    return displayName;
  }

  /** True for the three fixed-size Bloom filters, which have a {@link #layout}. */
  public boolean isBloom() {
    return this == BLOOM || this == BLOCKED || this == PARTITIONED;
  }

  /**
   * The layout a fixed-size Bloom type chooses for {@code n} keys at rate {@code p}.
   *
   * @throws IllegalStateException for the other types, whose size depends on more than n and p
   */
  public FilterLayout layout(long n, double p) {
    return switch (this) {
      case BLOOM -> FilterMath.classicLayout(n, p);
      case BLOCKED -> FilterMath.blockedLayout(n, p);
      case PARTITIONED -> FilterMath.partitionedLayout(n, p);
      default -> throw new IllegalStateException(displayName + " has no fixed Bloom layout");
    };
  }

  /** The type with this id, or {@code null} when this build does not know it. */
  public static FilterType byId(int id) {
    for (FilterType t : values()) {
      if (t.id == id) {
        return t;
      }
    }
    return null;
  }

  /**
   * The type named {@code name} ({@code bloom}, {@code blocked}, …).
   *
   * @throws IllegalArgumentException listing the known names
   */
  public static FilterType byName(String name) {
    for (FilterType t : values()) {
      if (t.displayName.equals(name)) {
        return t;
      }
    }
    throw new IllegalArgumentException(
        "unknown filter type '"
            + name
            + "'; known types: "
            + Arrays.stream(values())
                .map(FilterType::displayName)
                .collect(Collectors.joining(", ")));
  }

  /** "bloom (1), blocked (2), …" for messages. */
  static String describeIds() {
    return Arrays.stream(values())
        .map(t -> t.displayName + " (" + t.id + ")")
        .collect(Collectors.joining(", "));
  }
}
