package dev.idem.engine.state;

import dev.idem.engine.DedupStats;
import dev.idem.engine.records.InputCheck;
import dev.idem.engine.records.InputRead;
import java.util.Map;

/**
 * What a checkpoint commits, atomically with the keys kept up to it: where the input was, how long
 * each output was, which filter snapshot covers which keys, and the counts so far. Stored as JSON
 * in the state's {@code meta} column family under {@code "checkpoint"}.
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
 * @param read what the job read of input {@code fileIndex}, through {@code offset}: its CRC32C and
 *     sampled blocks, for the resume to check the input still holds it ({@link InputCheck}); {@code
 *     null} in states of versions before it was kept. Of the inputs before it, the state's meta
 *     values {@code "input-<index>"} hold the same.
 * @param tails each output file's {@code OutputFile.tailChecksum()} at this checkpoint, by role
 *     ({@link #OUTPUT}, {@link #DROPPED}, {@link #QUARANTINE}, {@link #LATE}); empty in states
 *     written before idem recorded them
 * @param deltaSequence the checkpoint of the newest delta level ({@code delta-<d>.snap}); the
 *     levels are every delta after {@code snapshotSequence} up to it, each the keys kept since the
 *     snapshot before it; 0 for none, and absent (0) in states written before deltas. Only an exact
 *     set alone has them.
 */
public record Checkpoint(
    long sequence,
    int fileIndex,
    long offset,
    long line,
    long outputBytes,
    long droppedBytes,
    String quarantine,
    long quarantineBytes,
    long snapshotSequence,
    long records,
    long blankLines,
    long badRecords,
    DedupStats stats,
    WindowCheckpoint window,
    boolean complete,
    InputRead read,
    Map<String, Long> tails,
    Long deltaSequence) {

  public static final String OUTPUT = "output";
  public static final String DROPPED = "dropped";
  public static final String QUARANTINE = "quarantine";
  public static final String LATE = "late";

  /** The state before anything was read. */
  public static final Checkpoint START =
      new Checkpoint(
          0, 0, 0, 0, 0, 0, null, 0, 0, 0, 0, 0, DedupStats.ZERO, null, false, null, Map.of(), 0L);

  public Checkpoint {
    tails = tails == null ? Map.of() : Map.copyOf(tails);
    deltaSequence = deltaSequence == null ? 0L : deltaSequence;
  }

  /** A checkpoint without a delta snapshot. */
  public Checkpoint(
      long sequence,
      int fileIndex,
      long offset,
      long line,
      long outputBytes,
      long droppedBytes,
      String quarantine,
      long quarantineBytes,
      long snapshotSequence,
      long records,
      long blankLines,
      long badRecords,
      DedupStats stats,
      WindowCheckpoint window,
      boolean complete,
      InputRead read,
      Map<String, Long> tails) {
    this(
        sequence,
        fileIndex,
        offset,
        line,
        outputBytes,
        droppedBytes,
        quarantine,
        quarantineBytes,
        snapshotSequence,
        records,
        blankLines,
        badRecords,
        stats,
        window,
        complete,
        read,
        tails,
        0L);
  }

  /** The tail checksum recorded for the output of {@code role}, or {@code null}. */
  public Long tail(String role) {
    return tails.get(role);
  }
}
