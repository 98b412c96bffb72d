package dev.idem.core.filter;

import java.io.IOException;
import java.nio.channels.WritableByteChannel;
import java.util.zip.CRC32C;

/**
 * One stripe of a layered set as one table: built in the heap when it is written (one stripe at a
 * time, so a snapshot takes at most one stripe's room more), with the bucket count its key count
 * gives, which the header states before any table is built. The levels never share a key.
 */
final class MergedStripe extends BitArray {
  private final MappedTable[] levels;
  private final FingerprintSet overlay;
  final long size;
  final boolean containsZero;
  private final int buckets;

  MergedStripe(MappedTable[] levels, FingerprintSet overlay) {
    this.levels = levels;
    this.overlay = overlay;
    long n = overlay.size();
    boolean zero = overlay.containsZero();
    for (MappedTable t : levels) {
      n += t.size();
      zero |= t.containsZero();
    }
    this.size = n;
    this.containsZero = zero;
    this.buckets = (int) FingerprintSet.bucketsFor(n, FingerprintSet.DEFAULT_LOAD_FACTOR);
  }

  @Override
  long wordCount() {
    return 2L * FingerprintSet.SLOTS_PER_BUCKET * buckets;
  }

  @Override
  long word(long index) {
    throw new UnsupportedOperationException("a merged stripe is only written");
  }

  @Override
  long orWord(long index, long mask) {
    throw new UnsupportedOperationException("a merged stripe is only written");
  }

  @Override
  void setWord(long index, long value) {
    throw new UnsupportedOperationException("a merged stripe is only written");
  }

  @Override
  void writeTo(WritableByteChannel out, CRC32C crc) throws IOException {
    FingerprintSet table = FingerprintSet.withBuckets(buckets, FingerprintSet.DEFAULT_LOAD_FACTOR);
    for (MappedTable t : levels) {
      t.forEach(table::addIfAbsent);
    }
    overlay.forEach(table::addIfAbsent);
    if (table.size() != size || table.bitSize() != 64L * wordCount()) {
      throw new IllegalStateException(
          "a stripe merged to "
              + table.size()
              + " keys, its levels held "
              + size
              + ": two levels shared a key");
    }
    table.payload().get(0).writeTo(out, crc);
  }
}
