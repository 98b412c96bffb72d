package dev.idem.engine.records;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Records passed from the reading thread to the checking thread, in input order: each one's bytes
 * as read (terminator included), its fingerprint or the reason it is unusable, and its position.
 * Flat arrays, so a batch of thousands of records is a handful of objects.
 */
public final class RecordBatch {

  public static final int MAX_RECORDS = 2048;
  static final int TARGET_BYTES = 1 << 20;

  /** A usable record. */
  public static final byte OK = 0;

  /** A blank line of JSON Lines: not a record. */
  public static final byte BLANK = 1;

  /** A record without a usable key; {@link #problem} says why. */
  public static final byte BAD = 2;

  /** A CSV/TSV header line to write to the output (the first input's only). */
  public static final byte HEADER = 3;

  /** Bytes after which the batch is full (a batch may hold one record larger than this). */
  private final int targetBytes;

  private final int maxRecords;
  public byte[] arena;
  int arenaSize;
  public int count;
  public final int[] start;
  public final int[] contentLength;
  public final int[] terminatorLength;
  public final byte[] kind;
  public final long[] fingerprints;
  public final byte[][] keys;
  public final String[] problem;
  public final int[] fileIndex;
  public final long[] line;
  public final long[] endOffset;

  /** Lines of its input consumed through the end of the record (a CSV record may span lines). */
  public final long[] endLine;

  /** Event time in epoch milliseconds, for windowed jobs. */
  public final long[] eventTime;

  /**
   * The CRC32C of the record's input from its first byte through this record, where the reading
   * thread noted it (a job that keeps what it read, see {@link InputReads}), else {@code -1}.
   */
  final long[] crcAfter;

  /** Inputs the reading thread read to their end while filling this batch, in order. */
  final List<InputEnd> ended = new ArrayList<>();

  /** Set on the last batch: every input was read to its end. */
  public boolean endOfInput;

  /** Set when reading failed; the checking thread rethrows it in order. */
  Throwable failure;

  RecordBatch() {
    this(TARGET_BYTES, MAX_RECORDS);
  }

  /**
   * A batch of a given size: jobs with a memory budget (sort-dedup) use smaller ones, since the
   * reading thread keeps several batches in flight.
   */
  RecordBatch(int targetBytes, int maxRecords) {
    this.targetBytes = targetBytes;
    this.maxRecords = maxRecords;
    arena = new byte[targetBytes + 4096];
    start = new int[maxRecords];
    contentLength = new int[maxRecords];
    terminatorLength = new int[maxRecords];
    kind = new byte[maxRecords];
    fingerprints = new long[2 * maxRecords];
    keys = new byte[maxRecords][];
    problem = new String[maxRecords];
    fileIndex = new int[maxRecords];
    line = new long[maxRecords];
    endOffset = new long[maxRecords];
    endLine = new long[maxRecords];
    eventTime = new long[maxRecords];
    crcAfter = new long[maxRecords];
  }

  /**
   * What was read of an input, at its end.
   *
   * @param bytes its length (decompressed, for gzip or zstd)
   * @param crc the CRC32C of all of it, or {@code -1} when not known
   */
  record InputEnd(int file, long bytes, long crc) {}

  boolean isFull() {
    return count == maxRecords || arenaSize >= targetBytes;
  }

  /** Appends a record's bytes and position; returns its index. */
  int add(
      byte kindOfRecord,
      byte[] bytes,
      int offset,
      int length,
      int terminator,
      int file,
      long lineNumber,
      long end) {
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
    crcAfter[i] = -1;
    arenaSize += total;
    return i;
  }

  /**
   * Whether bad record {@code i} was too long to keep: its bytes are not here, so it cannot be
   * quarantined, only counted.
   */
  public boolean tooLongToKeep(int i) {
    // RecordReader's message for a record over --max-record-bytes, which it reads but drops
    return contentLength[i] == 0 && problem[i].startsWith("record of ");
  }

  public void endLine(int i, long lineNumber) {
    endLine[i] = lineNumber;
  }

  void clear() {
    count = 0;
    arenaSize = 0;
    endOfInput = false;
    failure = null;
    ended.clear();
    if (arena.length > 4 * targetBytes) {
      arena = new byte[targetBytes + 4096]; // one huge record should not pin memory
    }
  }
}
