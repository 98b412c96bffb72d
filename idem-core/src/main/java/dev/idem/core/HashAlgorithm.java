package dev.idem.core;

import com.dynatrace.hash4j.hashing.Hasher128;
import com.dynatrace.hash4j.hashing.Hashing;

/**
 * The hash functions a {@link Fingerprinter} can use. The id is stored in every snapshot, so a file
 * is never read with a different function than the one that wrote it.
 */
public enum HashAlgorithm {
  /**
   * XXH3, 128-bit variant (hash4j's implementation): passes SMHasher, ≈ 20 GB/s on long keys, and
   * its 128-bit output gives both halves of a fingerprint from one pass over the key.
   */
  XXH3_128(1, "xxh3-128");

  private final int id;
  private final String displayName;

  HashAlgorithm(int id, String displayName) {
    this.id = id;
    this.displayName = displayName;
  }

  /** The number written to snapshot headers. Never reused for another function. */
  public int id() {
    return id;
  }

  /** The lower-case name used on the command line and in reports. */
  public String displayName() {
    return displayName;
  }

  Hasher128 hasher(long seed) {
    return switch (this) {
      case XXH3_128 -> Hashing.xxh3_128(seed);
    };
  }

  /** The algorithm with this id, or {@code null} when this build does not know it. */
  public static HashAlgorithm byId(int id) {
    for (HashAlgorithm a : values()) {
      if (a.id == id) {
        return a;
      }
    }
    return null;
  }
}
