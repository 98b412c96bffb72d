package dev.idem.engine.job;

import java.util.Arrays;

/**
 * Records passed from the reading thread to the checking thread, in input order: each one's bytes
 * as read (terminator included), its fingerprint or the reason it is unusable, and its position.
 * Flat arrays, so a batch of thousands of records is a handful of objects.
 */
final class RecordBatch {

  static final int MAX_RECORDS = 2048;
  static final int TARGET_BYTES = 1 << 20;

  /** A usable record. */
  static final byte OK = 0;
  /** A blank line of JSON Lines: not a record. */
  static final byte BLANK = 1;
  /** A record without a usable key; {@link #problem} says why. */
  static final byte BAD = 2;
  /** A CSV/TSV header line to write to the output (the first input's only). */
  static final byte HEADER = 3;

  byte[] arena = new byte[TARGET_BYTES + 4096];
  int arenaSize;
  int count;
  final int[] start = new int[MAX_RECORDS];
  final int[] contentLength = new int[MAX_RECORDS];
  final int[] terminatorLength = new int[MAX_RECORDS];
  final byte[] kind = new byte[MAX_RECORDS];
  final long[] fingerprints = new long[2 * MAX_RECORDS];
  final byte[][] keys = new byte[MAX_RECORDS][];
  final String[] problem = new String[MAX_RECORDS];
  final int[] fileIndex = new int[MAX_RECORDS];
  final long[] line = new long[MAX_RECORDS];
  final long[] endOffset = new long[MAX_RECORDS];
  /** Lines of its input consumed through the end of the record (a CSV record may span lines). */
  final long[] endLine = new long[MAX_RECORDS];
  /** Set on the last batch: every input was read to its end. */
  boolean endOfInput;
  /** Set when reading failed; the checking thread rethrows it in order. */
  Exception failure;

  boolean isFull() {
    return count == MAX_RECORDS || arenaSize >= TARGET_BYTES;
  }

  /** Appends a record's bytes and position; returns its index. */
  int add(byte kindOfRecord, byte[] bytes, int offset, int length, int terminator, int file,
      long lineNumber, long end) {
    int total = length + terminator;
    if (arenaSize + total > arena.length) {
      arena = Arrays.copyOf(arena, Math.max(arena.length * 2, arenaSize + total));
    }
    System.arraycopy(bytes, offset, arena, arenaSize, total);
    int i = count++;
    start[i] = arenaSize;
    contentLength[i] = length;
    terminatorLength[i] = terminator;
    kind[i] = kindOfRecord;
    keys[i] = null;
    problem[i] = null;
    fileIndex[i] = file;
    line[i] = lineNumber;
    endOffset[i] = end;
    arenaSize += total;
    return i;
  }

  void endLine(int i, long lineNumber) {
    endLine[i] = lineNumber;
  }

  void clear() {
    count = 0;
    arenaSize = 0;
    endOfInput = false;
    failure = null;
    if (arena.length > 4 * TARGET_BYTES) {
      arena = new byte[TARGET_BYTES + 4096]; // one huge record should not pin memory
    }
  }
}
