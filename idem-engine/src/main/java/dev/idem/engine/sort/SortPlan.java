package dev.idem.engine.sort;

import dev.idem.engine.output.OutputFile;
import dev.idem.engine.records.RecordBatch;
import dev.idem.engine.records.RecordSource;

/**
 * How a sort-dedup job spends its memory budget. Every buffer the job holds at once is counted
 * here, so that the heap the job needs is about the budget plus the JVM's own baseline (see
 * docs/SORT_DEDUP.md, "Memory accounting").
 *
 * <ul>
 *   <li>reading (phase 1): the reader thread's {@value RecordSource#BATCHES} batches, its line
 *       buffer and gzip window, the sort buffer, one run writer and a quarantine output;
 *   <li>merging (phase 2): one block pair per open run, one run writer, the output buffer; in input
 *       order the last merge by key also feeds a buffer that sorts survivors by position.
 * </ul>
 *
 * @param batchBytes bytes per reader batch
 * @param batchRecords records per reader batch
 * @param bufferBytes the phase-1 sort buffer: record bytes plus their index
 * @param blockBytes uncompressed bytes per run block
 * @param fanIn runs merged at once
 * @param finalFanIn runs merged at once by the last merge by key (fewer in input order, where the
 *     position buffer shares the memory)
 * @param spoolBytes the buffer that sorts survivors by position during the last merge by key
 */
record SortPlan(
    int batchBytes,
    int batchRecords,
    long bufferBytes,
    int blockBytes,
    int fanIn,
    int finalFanIn,
    long spoolBytes) {

  /**
   * A record slot of a reader batch: offsets, lengths, kind, fingerprint, refs, positions,
   * checksum.
   */
  static final int BATCH_SLOT_BYTES = 104;

  /** The line reader's buffer and a gzip stream's buffer and window, while reading. */
  static final int READER_FIXED_BYTES = 160 << 10;

  /** An {@link OutputFile}'s buffer. */
  static final int OUTPUT_BUFFER_BYTES = 64 << 10;

  /** Most runs merged at once: beyond this, a heap step costs more than another pass saves. */
  static final int MAX_FAN_IN = 1024;

  SortPlan {
    if (fanIn < 2 || finalFanIn < 2 || finalFanIn > fanIn) {
      throw new IllegalArgumentException("fan-in must be at least 2: " + fanIn + "/" + finalFanIn);
    }
  }

  /** The plan for a budget of {@code memory} bytes. */
  static SortPlan of(long memory, SortDedupSpec.Order order) {
    int batchBytes = (int) clamp(memory / 64, 16 << 10, 1 << 20);
    int batchRecords = (int) clamp(batchBytes / 128, 64, RecordBatch.MAX_RECORDS);
    long reader =
        RecordSource.BATCHES * (long) (batchBytes + 4096 + batchRecords * BATCH_SLOT_BYTES)
            + READER_FIXED_BYTES;
    // small blocks for small budgets keep the fan-in up; 64 KiB is LZ4's window, larger blocks
    // compress no better
    int blockBytes = (int) clamp(memory / 256, 4 << 10, 64 << 10);
    long writer = RunWriter.memoryBytes(blockBytes);
    long buffer = Math.max(16 << 10, memory - reader - writer - OUTPUT_BUFFER_BYTES);
    long merging = memory - writer - OUTPUT_BUFFER_BYTES;
    long cursor = RunReader.memoryBytes(blockBytes);
    int fanIn = (int) clamp(merging / cursor, 2, MAX_FAN_IN);
    int finalFanIn = fanIn;
    long spool = 0;
    if (order == SortDedupSpec.Order.INPUT) {
      finalFanIn = Math.max(2, fanIn / 2);
      spool = Math.max(16 << 10, memory - finalFanIn * cursor - writer);
    }
    return new SortPlan(batchBytes, batchRecords, buffer, blockBytes, fanIn, finalFanIn, spool);
  }

  private static long clamp(long v, long min, long max) {
    return Math.max(min, Math.min(max, v));
  }
}
