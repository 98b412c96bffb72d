package dev.idem.engine.sort;

import java.io.IOException;
import java.util.Arrays;

/**
 * Entries held in memory until they are sorted and written as a run: record (and key) bytes in one
 * arena, everything else in primitive arrays indexed by arrival, so a buffer of millions of records
 * is a dozen objects. Index {@code i} is the {@code i}-th entry added; in the reading phase that is
 * also position order.
 *
 * <p>The budget is split between the arena and the per-entry arrays by the mean entry size; when a
 * buffer fills up on one side with the other side half empty, it re-splits by what it saw.
 */
final class RunBuffer implements IndexSort.Entries {

  private final RunKind kind;
  private final boolean laterFirst;
  private final long budget;
  private byte[] arena;
  private int arenaSize;
  private long[] hi;
  private long[] lo;
  private long[] ordinal;
  private int[] recordOffset;
  private int[] recordLength;
  private int[] keyOffset;
  private int[] keyLength;
  private int[] perm;
  private int[] scratch;
  private int[] counts;
  private int count;

  /**
   * @param kind what the buffer sorts by
   * @param budgetBytes heap for arena and arrays together
   * @param laterFirst among entries with equal keys, the later position sorts first (keep last)
   * @param expectedEntryBytes a guess of the mean record (and key) bytes, for the first split
   */
  RunBuffer(RunKind kind, long budgetBytes, boolean laterFirst, int expectedEntryBytes) {
    this.kind = kind;
    this.laterFirst = laterFirst;
    this.budget = budgetBytes;
    allocate(expectedEntryBytes);
  }

  /** Heap per entry besides its bytes: fields, sort permutation, merge scratch, radix counts. */
  static int indexBytes(RunKind kind) {
    return switch (kind) {
      case FINGERPRINT -> 8 + 8 + 8 + 4 + 4 + 4 + 4 + 4;
      case EXACT_KEY -> 8 + 8 + 8 + 4 + 4 + 4 + 4 + 4 + 4 + 4;
      case ORDINAL -> 8 + 4 + 4 + 4 + 4 + 4;
    };
  }

  private void allocate(int meanEntryBytes) {
    int per = indexBytes(kind);
    long capacity = Math.max(1, budget / (per + Math.max(1, meanEntryBytes)));
    capacity = Math.min(capacity, Integer.MAX_VALUE / 4);
    long arenaBytes = Math.min(Integer.MAX_VALUE - 16, Math.max(1024, budget - capacity * per));
    int n = (int) capacity;
    // drop the old arrays before making new ones: a tight heap can then reuse their space
    arena = null;
    hi = lo = ordinal = null;
    recordOffset = recordLength = keyOffset = keyLength = perm = scratch = counts = null;
    arena = new byte[(int) arenaBytes];
    if (kind.hasFingerprint()) {
      hi = new long[n];
      lo = new long[n];
    }
    ordinal = new long[n];
    recordOffset = new int[n];
    recordLength = new int[n];
    if (kind.hasKey()) {
      keyOffset = new int[n];
      keyLength = new int[n];
    }
    perm = new int[n];
    scratch = new int[n];
    counts = new int[IndexSort.countsLength(n)];
  }

  /** Entries held. */
  int size() {
    return count;
  }

  /**
   * Adds an entry; {@code false}, adding nothing, when it does not fit.
   *
   * @param newline append a {@code '\n'} to the record (the last line of an input without one)
   */
  boolean add(
      long h,
      long l,
      long position,
      byte[] key,
      int keyOff,
      int keyLen,
      byte[] record,
      int recordOff,
      int recordLen,
      boolean newline) {
    int recordBytes = recordLen + (newline ? 1 : 0);
    // a key that is the record's content (whole lines) is not stored twice
    boolean sharedKey =
        !kind.hasKey()
            || keyLen <= recordLen
                && Arrays.equals(
                    key, keyOff, keyOff + keyLen, record, recordOff, recordOff + keyLen);
    long need = (long) recordBytes + (sharedKey ? 0 : keyLen);
    if (count == ordinal.length || arenaSize + need > arena.length) {
      return false;
    }
    int i = count++;
    if (hi != null) {
      hi[i] = h;
      lo[i] = l;
    }
    ordinal[i] = position;
    recordOffset[i] = arenaSize;
    recordLength[i] = recordBytes;
    System.arraycopy(record, recordOff, arena, arenaSize, recordLen);
    arenaSize += recordLen;
    if (newline) {
      arena[arenaSize++] = '\n';
    }
    if (keyOffset != null) {
      if (sharedKey) {
        keyOffset[i] = recordOffset[i];
      } else {
        keyOffset[i] = arenaSize;
        System.arraycopy(key, keyOff, arena, arenaSize, keyLen);
        arenaSize += keyLen;
      }
      keyLength[i] = keyLen;
    }
    return true;
  }

  @Override
  public long radixKey(int i) {
    return hi != null ? hi[i] : ordinal[i]; // positions are never negative: unsigned = signed
  }

  @Override
  public int compare(int i, int j) {
    if (hi != null) {
      int c = Long.compareUnsigned(hi[i], hi[j]);
      if (c != 0) {
        return c;
      }
      c = Long.compareUnsigned(lo[i], lo[j]);
      if (c != 0) {
        return c;
      }
      if (keyOffset != null) {
        c =
            Arrays.compareUnsigned(
                arena,
                keyOffset[i],
                keyOffset[i] + keyLength[i],
                arena,
                keyOffset[j],
                keyOffset[j] + keyLength[j]);
        if (c != 0) {
          return c;
        }
      }
      if (laterFirst) {
        return Long.compare(ordinal[j], ordinal[i]);
      }
    }
    return Long.compare(ordinal[i], ordinal[j]);
  }

  private boolean sameKey(int i, int j) {
    return hi[i] == hi[j]
        && lo[i] == lo[j]
        && (keyOffset == null
            || Arrays.equals(
                arena,
                keyOffset[i],
                keyOffset[i] + keyLength[i],
                arena,
                keyOffset[j],
                keyOffset[j] + keyLength[j]));
  }

  /**
   * Sorts the entries and writes them to {@code sink}: by key keeping only the first of each key in
   * sort order (the survivor: earliest, or latest with {@code laterFirst}), or, for a buffer of
   * positions, all of them by position. Then empties the buffer.
   *
   * @return entries written
   */
  long drainSorted(EntrySink sink) throws IOException {
    IndexSort.sort(this, count, perm, scratch, counts, laterFirst);
    long written = 0;
    int previous = -1;
    for (int k = 0; k < count; k++) {
      int i = perm[k];
      if (hi != null && previous >= 0 && sameKey(previous, i)) {
        continue;
      }
      emit(sink, i);
      previous = i;
      written++;
    }
    clear();
    return written;
  }

  /**
   * For a job whose input fit in this one buffer: writes the survivor of each key in the order the
   * entries were added (position order), then empties the buffer.
   *
   * @return entries written
   */
  long drainSurvivorsInArrivalOrder(EntrySink sink) throws IOException {
    IndexSort.sort(this, count, perm, scratch, counts, laterFirst);
    // perm is done with scratch now; reuse it to mark survivors
    Arrays.fill(scratch, 0, count, 0);
    int previous = -1;
    for (int k = 0; k < count; k++) {
      int i = perm[k];
      if (previous < 0 || !sameKey(previous, i)) {
        scratch[i] = 1;
        previous = i;
      }
    }
    long written = 0;
    for (int i = 0; i < count; i++) {
      if (scratch[i] == 1) {
        emit(sink, i);
        written++;
      }
    }
    clear();
    return written;
  }

  private void emit(EntrySink sink, int i) throws IOException {
    sink.write(
        hi == null ? 0 : hi[i],
        lo == null ? 0 : lo[i],
        ordinal[i],
        arena,
        keyOffset == null ? 0 : keyOffset[i],
        keyLength == null ? 0 : keyLength[i],
        arena,
        recordOffset[i],
        recordLength[i]);
  }

  private void clear() {
    int n = count;
    long bytes = arenaSize;
    count = 0;
    arenaSize = 0;
    boolean entriesFull = n == ordinal.length && bytes < arena.length / 2;
    boolean arenaFull = n < ordinal.length / 2 && bytes > arena.length / 2;
    if (n > 0 && (entriesFull || arenaFull)) {
      allocate((int) Math.min(Integer.MAX_VALUE / 2, Math.max(1, bytes / n)));
    }
  }

  /** The first 8 bytes at {@code from} of a key, big-endian, zero-padded: orders like the key. */
  static long keyPrefix(byte[] key, int offset, int length, int from) {
    long v = 0;
    for (int i = 0; i < 8; i++) {
      int p = from + i;
      v = (v << 8) | (p < length ? key[offset + p] & 0xFF : 0);
    }
    return v;
  }
}
