package dev.idem.engine.sort;

import java.io.IOException;
import java.util.Arrays;
import java.util.List;

/**
 * Merges sorted runs of one kind into one sorted stream: a binary heap of run cursors, the smallest
 * current entry on top. Merging runs sorted by key with {@code dedup} writes only the first entry
 * of each key in merged order, which is the survivor (earliest position, or latest when sorted
 * later-first), because every run was sorted the same way and already held only its own survivors.
 */
final class RunMerger {

  /** Hears how far a merge is, every {@link #PROGRESS_EVERY} entries read. */
  interface Progress {
    void entriesRead(long entries) throws IOException;
  }

  static final int PROGRESS_EVERY = 1 << 14;

  private final boolean laterFirst;
  private final RunReader[] heap;
  private int size;
  private long lastHi;
  private long lastLo;
  private byte[] lastKey = new byte[64];
  private int lastKeyLength = -1;

  private RunMerger(int runs, boolean laterFirst) {
    this.heap = new RunReader[runs];
    this.laterFirst = laterFirst;
  }

  /**
   * Merges {@code runs} into {@code sink}.
   *
   * @param laterFirst runs by key put later positions first among equal keys (keep last)
   * @param dedup write only the first entry of each key (runs by key only)
   * @return entries written
   */
  static long merge(
      List<RunFile> runs,
      int blockBytes,
      boolean laterFirst,
      boolean dedup,
      EntrySink sink,
      Progress progress)
      throws IOException {
    RunMerger m = new RunMerger(runs.size(), laterFirst);
    try {
      for (RunFile run : runs) {
        RunReader r = new RunReader(run, blockBytes);
        boolean any;
        try {
          any = r.next();
        } catch (IOException | RuntimeException e) {
          r.close();
          throw e;
        }
        if (any) {
          m.heap[m.size++] = r;
        } else {
          r.close();
        }
      }
      for (int i = m.size / 2 - 1; i >= 0; i--) {
        m.siftDown(i);
      }
      return m.drain(sink, dedup && runs.get(0).kind().hasFingerprint(), progress);
    } finally {
      for (int i = 0; i < m.size; i++) {
        m.heap[i].close();
      }
    }
  }

  private long drain(EntrySink sink, boolean dedup, Progress progress) throws IOException {
    long read = 0;
    long written = 0;
    while (size > 0) {
      RunReader top = heap[0];
      if (!dedup || !sameAsLast(top)) {
        sink.write(
            top.hi,
            top.lo,
            top.ordinal,
            top.block,
            top.keyOffset,
            top.keyLength,
            top.block,
            top.recordOffset,
            top.recordLength);
        written++;
        if (dedup) {
          remember(top);
        }
      }
      if (++read % PROGRESS_EVERY == 0) {
        progress.entriesRead(read);
      }
      if (top.next()) {
        siftDown(0);
      } else {
        top.close();
        heap[0] = heap[--size];
        heap[size] = null;
        siftDown(0);
      }
    }
    progress.entriesRead(read);
    return written;
  }

  private boolean sameAsLast(RunReader r) {
    if (lastKeyLength < 0 || r.hi != lastHi || r.lo != lastLo) {
      return false;
    }
    return !r.run.kind().hasKey()
        || Arrays.equals(
            r.block, r.keyOffset, r.keyOffset + r.keyLength, lastKey, 0, lastKeyLength);
  }

  private void remember(RunReader r) {
    lastHi = r.hi;
    lastLo = r.lo;
    if (r.run.kind().hasKey()) {
      if (r.keyLength > lastKey.length) {
        lastKey = new byte[Math.max(r.keyLength, 2 * lastKey.length)];
      }
      System.arraycopy(r.block, r.keyOffset, lastKey, 0, r.keyLength);
      lastKeyLength = r.keyLength;
    } else {
      lastKeyLength = 0;
    }
  }

  private void siftDown(int i) {
    RunReader x = heap[i];
    while (true) {
      int child = 2 * i + 1;
      if (child >= size) {
        break;
      }
      if (child + 1 < size && less(heap[child + 1], heap[child])) {
        child++;
      }
      if (!less(heap[child], x)) {
        break;
      }
      heap[i] = heap[child];
      i = child;
    }
    heap[i] = x;
  }

  /** The order every run of the kind was sorted in (see {@link RunBuffer#compare}). */
  private boolean less(RunReader a, RunReader b) {
    RunKind kind = a.run.kind();
    if (kind.hasFingerprint()) {
      int c = Long.compareUnsigned(a.hi, b.hi);
      if (c == 0) {
        c = Long.compareUnsigned(a.lo, b.lo);
      }
      if (c == 0 && kind.hasKey()) {
        c =
            Arrays.compareUnsigned(
                a.block,
                a.keyOffset,
                a.keyOffset + a.keyLength,
                b.block,
                b.keyOffset,
                b.keyOffset + b.keyLength);
      }
      if (c != 0) {
        return c < 0;
      }
      if (laterFirst) {
        return a.ordinal > b.ordinal;
      }
    }
    return a.ordinal < b.ordinal;
  }
}
