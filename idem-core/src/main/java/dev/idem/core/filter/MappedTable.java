package dev.idem.core.filter;

/**
 * A {@link FingerprintSet}'s table of layout 1 (buckets of four slots) probed where it lies in a
 * mapped snapshot, never copied and never changed: one stripe of a {@link StripedFingerprintSet}
 * used in place. Each bucket's page is verified before the bucket is read ({@link
 * MappedBitArray#check}); a bucket never spans two pages, since buckets are 64 bytes from a 64-byte
 * aligned start.
 */
final class MappedTable {

  private static final int BUCKET_WORDS = 8;

  private final MappedBitArray words;
  private final int buckets;
  private final int size;
  private final boolean containsZero;
  private final double loadFactor;

  MappedTable(MappedBitArray words, int buckets, int size, boolean containsZero, double load) {
    this.words = words;
    this.buckets = buckets;
    this.size = size;
    this.containsZero = containsZero;
    this.loadFactor = load;
  }

  int size() {
    return size;
  }

  int buckets() {
    return buckets;
  }

  boolean containsZero() {
    return containsZero;
  }

  double loadFactor() {
    return loadFactor;
  }

  long bitSize() {
    return 128L * FingerprintSet.SLOTS_PER_BUCKET * buckets;
  }

  /** The words of the table: its payload array. */
  MappedBitArray words() {
    return words;
  }

  boolean contains(long hi, long lo) {
    if ((hi | lo) == 0) {
      return containsZero;
    }
    MappedBitArray w = words;
    long b = AbstractBloomFilter.reduce(hi, buckets);
    while (true) {
      long at = BUCKET_WORDS * b;
      w.check(at);
      long h0 = w.rawWord(at);
      long l0 = w.rawWord(at + 1);
      long h1 = w.rawWord(at + 2);
      long l1 = w.rawWord(at + 3);
      if ((h0 == hi && l0 == lo) || (h1 == hi && l1 == lo)) {
        return true;
      }
      if ((w.rawWord(at + 4) == hi && w.rawWord(at + 5) == lo)) {
        return true;
      }
      long h3 = w.rawWord(at + 6);
      long l3 = w.rawWord(at + 7);
      if (h3 == hi && l3 == lo) {
        return true;
      }
      if ((h3 | l3) == 0 || !FingerprintSet.passed(h0, l0, h1, l1)) {
        return false;
      }
      b = b + 1 == buckets ? 0 : b + 1;
    }
  }

  /** Reads the first word of the home bucket of {@code hi}: a prefetch the caller keeps alive. */
  long touch(long hi) {
    long at = BUCKET_WORDS * AbstractBloomFilter.reduce(hi, buckets);
    words.check(at);
    return words.rawWord(at);
  }

  /** Calls {@code action} with every fingerprint, in table order (verifying every page). */
  void forEach(FingerprintSet.FingerprintConsumer action) {
    if (containsZero) {
      action.accept(0, 0);
    }
    MappedBitArray w = words;
    long n = (long) BUCKET_WORDS * buckets;
    for (long at = 0; at < n; at += BUCKET_WORDS) {
      w.check(at);
      for (int s = 0; s < BUCKET_WORDS; s += 2) {
        long h = w.rawWord(at + s);
        long l = w.rawWord(at + s + 1);
        if ((h | l) != 0) {
          action.accept(h, l);
        }
      }
    }
  }
}
