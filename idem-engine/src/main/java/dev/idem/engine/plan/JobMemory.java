package dev.idem.engine.plan;

import dev.idem.core.filter.StripedFingerprintSet;

/**
 * The Java heap an idem job needs: one rule for {@code idem plan}, which sizes the commands it
 * recommends for a heap budget, and for {@code idem dedup --exact-store auto}, which chooses memory
 * or another method for the heap it was given ({@code DedupJob}). Both ask here, so a plan that
 * fits a budget is a job that chooses the same tier and runs to its end under {@code -Xmx} = that
 * budget.
 */
public final class JobMemory {

  /**
   * The heap a job holds beside its exact set or filter: its record batches (five of about 1 MiB
   * plus their per-record arrays, more with parsing threads), output buffers, the keys of a
   * checkpoint in flight, classes and the JVM's young generation (8 MiB under {@code bin/idem}).
   * Measured under {@code bin/idem}'s collector settings: a job with a 15 MiB set ran at {@code
   * -Xmx36m} and not at 32m, one with a 1 MiB filter and RocksDB at 22m; G1 needs a few MiB more.
   * Records longer than a batch ({@code --max-record-bytes}) need their own size on top.
   */
  public static final long WORKING_HEAP = 32L << 20;

  /**
   * Keys a full-key exact set in memory costs, a key and its entry together (the keys' own length
   * is not known before the job reads them).
   */
  public static final long FULL_KEY_BYTES = 96;

  private JobMemory() {}

  /**
   * The bytes of the exact set a dedup job allocates for {@code keys} keys: the striped fingerprint
   * set alone, which is the job's whole exact tier in memory (no filter in front).
   */
  public static long exactSetBytes(long keys) {
    return StripedFingerprintSet.bytesFor(keys);
  }

  /**
   * The heap of a dedup job with its exact set in memory, sized for {@code keys} keys.
   *
   * @param canExceed whether more keys than {@code keys} may come (a count guessed from the input's
   *     size rather than counted or bounded): then the set may double as it grows, and the heap
   *     must hold it twice
   */
  public static long memoryTier(long keys, boolean canExceed) {
    long set = exactSetBytes(keys);
    return (canExceed ? 2 * set : set) + WORKING_HEAP;
  }

  /** {@link #memoryTier} for a job that keeps whole keys ({@code --key-mode full}). */
  public static long fullKeyMemoryTier(long keys, boolean canExceed) {
    long set = Math.multiplyExact(Math.max(keys, 1), FULL_KEY_BYTES);
    return (canExceed ? 2 * set : set) + WORKING_HEAP;
  }

  /** The heap of a job that holds {@code structureBytes} (a filter, a window's buckets) in it. */
  public static long withWorkingHeap(long structureBytes) {
    return structureBytes + WORKING_HEAP;
  }

  /**
   * The {@code --memory} that {@code idem sort-dedup} may be given in a heap of {@code heapBytes}:
   * its runs are sorted in {@code --memory} while the batches being read and the run being written
   * take about as much again (docs/SORT_DEDUP.md), beside the working heap. 0 when even the working
   * heap does not fit.
   */
  public static long sortMemoryFor(long heapBytes) {
    return Math.max(0, (heapBytes - WORKING_HEAP) / 2);
  }

  /** The heap {@code idem sort-dedup --memory sortMemory} needs: the inverse of the above. */
  public static long sortHeap(long sortMemory) {
    return 2 * sortMemory + WORKING_HEAP;
  }
}
