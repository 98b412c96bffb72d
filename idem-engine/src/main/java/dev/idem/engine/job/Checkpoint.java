package dev.idem.engine.job;

import dev.idem.engine.DedupStats;

/**
 * What a checkpoint commits, atomically with the keys kept up to it: where the input was, how
 * long each output was, which filter snapshot covers which keys, and the counts so far. Stored as
 * JSON in the state's {@code meta} column family under {@code "checkpoint"}.
 *
 * @param sequence 1, 2, …; 0 is the empty state before the first checkpoint
 * @param fileIndex the input being read (index into the manifest's inputs)
 * @param offset bytes of that input (decompressed, for gzip) consumed through the last record
 * @param line lines of that input consumed
 * @param outputBytes length of the output
 * @param droppedBytes length of the dropped-duplicates file (0 without one)
 * @param quarantine the quarantine file in use, or {@code null}
 * @param quarantineBytes its length
 * @param snapshotSequence the checkpoint whose filter snapshot is current (0: none; the filter is
 *     the journal replayed from the start)
 * @param records records read (blank lines and bad records included)
 * @param blankLines blank JSON Lines lines skipped
 * @param badRecords records without a usable key (failed, skipped or quarantined)
 * @param stats the deduplicator's counts
 * @param window a windowed job's clock and counts, or {@code null}
 * @param complete whether every input was read to its end
 * @param read what the job read of input {@code fileIndex}, through {@code offset}: its
 *     CRC32C and sampled blocks, for the resume to check the input still holds it ({@link
 *     InputCheck}); {@code null} in states of versions before it was kept. Of the inputs before
 *     it, the state's meta values {@code "input-<index>"} hold the same.
 */
public record Checkpoint(long sequence, int fileIndex, long offset, long line,
    long outputBytes, long droppedBytes, String quarantine, long quarantineBytes,
    long snapshotSequence, long records, long blankLines, long badRecords, DedupStats stats,
    WindowCheckpoint window, boolean complete, InputRead read) {

  /** The state before anything was read. */
  public static final Checkpoint START = new Checkpoint(0, 0, 0, 0, 0, 0, null, 0, 0, 0, 0, 0,
      DedupStats.ZERO, null, false, null);
}
