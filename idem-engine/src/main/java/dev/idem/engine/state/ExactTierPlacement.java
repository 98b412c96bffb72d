package dev.idem.engine.state;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonValue;
import java.util.Objects;

/**
 * Where a job keeps its exact tier: nowhere (approximate mode, windows), in memory, in RocksDB, in
 * partition files judged one at a time before the records are written (the partitioned method, for
 * sets larger than memory), or in a seen-set shared with other workers at {@code address}. A
 * state's layout follows from it ({@link Manifest#writesSeen()}), so the manifest records it.
 *
 * @param address the shared set's address ({@code redis://...}) for {@link Kind#SHARED}, else
 *     {@code null}
 */
public record ExactTierPlacement(Kind kind, String address) {

  /** The kinds of place. */
  public enum Kind {
    NONE,
    MEMORY,
    ROCKSDB,
    PARTITIONED,
    SHARED
  }

  public static final ExactTierPlacement NONE = new ExactTierPlacement(Kind.NONE, null);
  public static final ExactTierPlacement MEMORY = new ExactTierPlacement(Kind.MEMORY, null);
  public static final ExactTierPlacement ROCKSDB = new ExactTierPlacement(Kind.ROCKSDB, null);
  public static final ExactTierPlacement PARTITIONED =
      new ExactTierPlacement(Kind.PARTITIONED, null);

  public ExactTierPlacement {
    Objects.requireNonNull(kind, "kind");
    if ((kind == Kind.SHARED) != (address != null)) {
      throw new IllegalArgumentException("a shared tier has an address, and only it");
    }
  }

  /** A seen-set shared with other workers, at {@code address}. */
  public static ExactTierPlacement shared(String address) {
    return new ExactTierPlacement(Kind.SHARED, Objects.requireNonNull(address, "address"));
  }

  /**
   * The form manifests keep and summaries print: {@code none}, {@code memory}, ... or the address.
   */
  @JsonValue
  @Override
  public String toString() {
    return kind == Kind.SHARED ? address : kind.name().toLowerCase(java.util.Locale.ROOT);
  }

  @JsonCreator
  static ExactTierPlacement parse(String text) {
    return switch (text) {
      case "none" -> NONE;
      case "memory" -> MEMORY;
      case "rocksdb" -> ROCKSDB;
      case "partitioned" -> PARTITIONED;
      default -> shared(text);
    };
  }
}
