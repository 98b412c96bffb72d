package dev.idem.core.filter;

/** The kinds of filter idem builds; the id is stored in snapshot headers and never reused. */
public enum FilterType {
  /** {@link BloomFilter}. */
  BLOOM(1, "bloom"),
  /** {@link BlockedBloomFilter}. */
  BLOCKED(2, "blocked"),
  /** {@link PartitionedBloomFilter}. */
  PARTITIONED(3, "partitioned");

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

  /** The layout this type chooses for {@code n} keys at rate {@code p}. */
  public FilterLayout layout(long n, double p) {
    return switch (this) {
      case BLOOM -> FilterMath.classicLayout(n, p);
      case BLOCKED -> FilterMath.blockedLayout(n, p);
      case PARTITIONED -> FilterMath.partitionedLayout(n, p);
    };
  }

  /** A new, empty filter of this type for {@code n} keys at rate {@code p}. */
  public AbstractBloomFilter create(long n, double p) {
    return switch (this) {
      case BLOOM -> BloomFilter.create(n, p);
      case BLOCKED -> BlockedBloomFilter.create(n, p);
      case PARTITIONED -> PartitionedBloomFilter.create(n, p);
    };
  }

  /** Rebuilds a filter of this type around existing bits (snapshot loading). */
  AbstractBloomFilter restore(
      long capacity, double targetFpp, long bitSize, int hashCount, BitArray bits, long count) {
    return switch (this) {
      case BLOOM -> new BloomFilter(capacity, targetFpp, bitSize, hashCount, bits, count);
      case BLOCKED -> new BlockedBloomFilter(capacity, targetFpp, bitSize, hashCount, bits, count);
      case PARTITIONED ->
          new PartitionedBloomFilter(capacity, targetFpp, bitSize, hashCount, bits, count);
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
   * The type named {@code name} ({@code bloom}, {@code blocked}, {@code partitioned}).
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
        "unknown filter type '" + name + "'; known types: bloom, blocked, partitioned");
  }
}
