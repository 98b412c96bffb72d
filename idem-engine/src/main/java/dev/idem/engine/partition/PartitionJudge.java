package dev.idem.engine.partition;

import dev.idem.core.filter.FingerprintSet;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * Judges partition files into {@link DuplicateBits}: an entry whose key an in-memory {@link
 * FingerprintSet} already holds is a later occurrence. A file with more keys than the budget's set
 * holds (the record count was guessed low, or the keys are skewed) is split again by other
 * fingerprint bits, and each part judged.
 */
final class PartitionJudge {

  private final Path dir;
  private final long setBudget;
  private final long fitting;
  private final DuplicateBits bits;

  /** Reused from one partition to the next: sized once, for the largest. */
  private FingerprintSet set;

  private final long largest;

  /**
   * @param largestBytes the longest partition file to come, which sizes the reused set
   */
  PartitionJudge(Path dir, long setBudget, long largestBytes, DuplicateBits bits) {
    this.dir = dir;
    this.setBudget = setBudget;
    this.fitting = PartitionedPlan.keysFitting(setBudget);
    this.largest = largestBytes / PartitionFiles.ENTRY_BYTES;
    this.bits = bits;
  }

  /**
   * Marks the later occurrences among the first {@code length} bytes of entries in {@code file};
   * returns how many there are.
   */
  long judge(Path file, long length) throws IOException {
    if (length / PartitionFiles.ENTRY_BYTES > fitting) {
      set = null; // the split's sets are its own
      return judgeSplit(file, length, 1);
    }
    if (set == null) {
      set = FingerprintSet.withExpectedSize(Math.min(largest, fitting));
    }
    return judge(file, length, set);
  }

  private long judge(Path file, long length, FingerprintSet set) throws IOException {
    set.clear();
    long[] found = {0};
    forEachEntry(
        file,
        length,
        (hi, lo, ordinal) -> {
          if (!set.addIfAbsent(hi, lo)) {
            bits.mark(ordinal);
            found[0]++;
          }
        });
    return found[0];
  }

  private long judgeSplit(Path file, long length, int level) throws IOException {
    long found = 0;
    long records = length / PartitionFiles.ENTRY_BYTES;
    int parts =
        (int) Math.min(PartitionedPlan.MAX_PARTITIONS, Math.ceil(1.25 * records / fitting) + 1);
    PartitionFiles.delete(dir, level);
    long[] lengths;
    try (PartitionFiles split =
        PartitionFiles.open(
            dir, level, new long[parts], PartitionFiles.bufferBytes(setBudget, parts))) {
      forEachEntry(
          file,
          length,
          (hi, lo, ordinal) ->
              split.add(PartitionFiles.partitionOf(lo, parts, level), hi, lo, ordinal));
      split.flush(); // not synced: a split is redone whole when the plan resumes
      lengths = split.lengths();
    }
    for (int i = 0; i < parts; i++) {
      Path part = PartitionFiles.path(dir, level, i);
      long keys = lengths[i] / PartitionFiles.ENTRY_BYTES;
      if (keys <= fitting || level >= 3) {
        // three levels of other bits that all crowd one part: the keys are that many, not skewed
        found += judge(part, lengths[i], FingerprintSet.withExpectedSize(Math.min(keys, fitting)));
      } else {
        found += judgeSplit(part, lengths[i], level + 1);
      }
      Files.deleteIfExists(part);
    }
    return found;
  }

  /** Receives the entries of a partition file. */
  @FunctionalInterface
  interface EntryConsumer {
    void accept(long hi, long lo, long ordinal) throws IOException;
  }

  /** Reads the first {@code length} bytes of entries in {@code file}, in order. */
  static void forEachEntry(Path file, long length, EntryConsumer action) throws IOException {
    ByteBuffer b =
        ByteBuffer.allocate(PartitionFiles.ENTRY_BYTES * 43_690) // about 1 MiB
            .order(ByteOrder.LITTLE_ENDIAN);
    try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
      long left = length;
      while (left > 0) {
        b.clear();
        if (b.capacity() > left) {
          b.limit((int) left);
        }
        while (b.hasRemaining()) {
          if (ch.read(b) < 0) {
            throw new IOException(
                file + ": ends before the " + length + " bytes the plan recorded: it was damaged");
          }
        }
        b.flip();
        left -= b.remaining();
        while (b.hasRemaining()) {
          action.accept(b.getLong(), b.getLong(), b.getLong());
        }
      }
    }
  }
}
