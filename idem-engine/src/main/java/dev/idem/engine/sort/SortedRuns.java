package dev.idem.engine.sort;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * The sorted runs phase 1 writes, and the sort buffer that fills the next one: a full buffer is
 * sorted by (key, position), its repeats dropped, and spilled as a run; a record larger than the
 * whole buffer gets a run of its own. When no run was needed, the buffer itself holds the output.
 */
final class SortedRuns {
  private final RunKind kind;
  private final SortPlan plan;
  private final boolean keepLast;
  private final List<RunFile> runs = new ArrayList<>();

  /** The buffer while reading; {@code null} before and once its memory went to the merge. */
  private RunBuffer buffer;

  SortedRuns(RunKind kind, SortPlan plan, boolean keepLast) {
    this.kind = kind;
    this.plan = plan;
    this.keepLast = keepLast;
  }

  /** Takes the runs a checkpoint names. */
  void restore(List<RunFile> named) {
    runs.clear();
    runs.addAll(named);
  }

  /** Allocates the buffer, split between records and index by {@code meanRecordBytes}. */
  void startBuffer(int meanRecordBytes) {
    buffer = new RunBuffer(kind, plan.bufferBytes(), keepLast, meanRecordBytes);
  }

  /** Adds a record to the buffer; false when it has no room for it. */
  boolean add(
      long hi,
      long lo,
      long position,
      byte[] key,
      int keyLength,
      byte[] record,
      int offset,
      int length,
      boolean newline) {
    return buffer.add(hi, lo, position, key, 0, keyLength, record, offset, length, newline);
  }

  /** Spills the buffer as a run if it holds anything; whether it did. */
  boolean spillIfAny(RunDirectory dir) throws IOException {
    if (buffer.size() == 0) {
      return false;
    }
    RunWriter w = dir.newRun(kind, plan.blockBytes());
    try {
      buffer.drainSorted(w);
      runs.add(dir.finished(w.finish()));
    } finally {
      w.close();
    }
    return true;
  }

  /** Writes a record larger than the whole buffer as a run of its own. */
  void writeAlone(
      RunDirectory dir, long hi, long lo, long position, byte[] key, int keyLength, byte[] record)
      throws IOException {
    RunWriter w = dir.newRun(kind, plan.blockBytes());
    try {
      w.write(hi, lo, position, key, 0, keyLength, record, 0, record.length);
      runs.add(dir.finished(w.finish()));
    } finally {
      w.close();
    }
  }

  /** Whether everything read is still in the buffer: no run was written. */
  boolean allInMemory() {
    return runs.isEmpty() && buffer != null;
  }

  /** Writes what the buffer holds to {@code sink}, in {@code order}; returns the count. */
  long drainInMemory(EntrySink sink, SortDedupSpec.Order order) throws IOException {
    return order == SortDedupSpec.Order.INPUT
        ? buffer.drainSurvivorsInArrivalOrder(sink)
        : buffer.drainSorted(sink);
  }

  /** Spills what the buffer still holds, and lets its memory go to the merge. */
  void finish(RunDirectory dir) throws IOException {
    if (buffer != null) {
      spillIfAny(dir);
    }
    buffer = null;
  }

  /** The runs written or restored, as of now. */
  List<RunFile> list() {
    return List.copyOf(runs);
  }

  int count() {
    return runs.size();
  }
}
