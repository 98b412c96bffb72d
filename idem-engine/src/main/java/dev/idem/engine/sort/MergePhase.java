package dev.idem.engine.sort;

import dev.idem.engine.run.JobListener;
import dev.idem.engine.run.PhaseProgress;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * Phase 2 of sort-dedup: merges the sorted runs of phase 1 into the output, in as many passes as
 * the fan-in the memory allows.
 *
 * <ul>
 *   <li>By key, deduplicating at every merge: while there are more runs than the last merge can
 *       open, the smallest are merged (only as many as needed to get down to that number, so most
 *       data goes through one merge by key only).
 *   <li>Key order: the last merge by key writes the output.
 *   <li>Input order: the last merge by key feeds the survivors to a buffer that sorts them by
 *       position and spills runs by position; those are merged (in passes again if needed) into the
 *       output. When the survivors fit in that buffer, it writes the output itself.
 * </ul>
 */
final class MergePhase {

  /**
   * Hears of every new set of runs that holds all the data still to merge: after each merge of a
   * group, and when the runs by position are complete. A resumable job checkpoints there.
   */
  interface Checkpoints {
    /**
     * @param runs every run left, all finished
     * @param byPosition whether they are the runs by input position (else by key)
     */
    void runs(List<RunFile> runs, boolean byPosition) throws IOException;
  }

  private static final long PROGRESS_NANOS = 500_000_000L;

  private final RunDirectory dir;
  private final SortPlan plan;
  private final boolean laterFirst;
  private final JobListener listener;
  private final Checkpoints checkpoints;
  private int passes;
  private int keyPasses;
  private long lastReport;

  MergePhase(
      RunDirectory dir,
      SortPlan plan,
      boolean laterFirst,
      JobListener listener,
      Checkpoints checkpoints) {
    this.dir = dir;
    this.plan = plan;
    this.laterFirst = laterFirst;
    this.listener = listener;
    this.checkpoints = checkpoints;
  }

  /** Merge passes made: each reads (part of) the data once. */
  int passes() {
    return passes;
  }

  /** Of those, the passes by key (the others are by position). */
  int keyPasses() {
    return keyPasses;
  }

  /** Merges runs by key into {@code out}, in key order; returns the entries written. */
  long inKeyOrder(List<RunFile> runs, EntrySink out) throws IOException {
    return finalMerge(reduce(runs, plan.fanIn(), true, "key"), true, out, "key");
  }

  /**
   * Merges runs by key, then the survivors by position into {@code out}; returns the entries
   * written.
   *
   * @param meanRecordBytes mean record size seen so far, to size the position buffer
   */
  long inInputOrder(List<RunFile> runs, EntrySink out, int meanRecordBytes) throws IOException {
    List<RunFile> byKey = reduce(runs, plan.finalFanIn(), true, "key");
    RunBuffer spool = new RunBuffer(RunKind.ORDINAL, plan.spoolBytes(), false, meanRecordBytes);
    List<RunFile> byPosition = new ArrayList<>();
    EntrySink toSpool =
        (hi, lo, ordinal, key, keyOff, keyLen, record, recordOff, recordLen) -> {
          if (!spool.add(0, 0, ordinal, null, 0, 0, record, recordOff, recordLen, false)) {
            byPosition.add(spill(spool));
            if (!spool.add(0, 0, ordinal, null, 0, 0, record, recordOff, recordLen, false)) {
              byPosition.add(single(ordinal, record, recordOff, recordLen));
            }
          }
        };
    finalMerge(byKey, true, toSpool, "key");
    if (byPosition.isEmpty()) {
      return spool.drainSorted(out); // the survivors fit in memory: sorted there
    }
    if (spool.size() > 0) {
      byPosition.add(spill(spool));
    }
    checkpoints.runs(byPosition, true);
    return fromPositions(byPosition, out);
  }

  /** Merges runs by position (the survivors of the merge by key) into {@code out}. */
  long fromPositions(List<RunFile> byPosition, EntrySink out) throws IOException {
    return finalMerge(
        reduce(byPosition, plan.fanIn(), false, "input position"), false, out, "input position");
  }

  private RunFile spill(RunBuffer buffer) throws IOException {
    RunWriter w = dir.newRun(RunKind.ORDINAL, plan.blockBytes());
    try {
      buffer.drainSorted(w);
      return dir.finished(w.finish());
    } finally {
      w.close();
    }
  }

  private RunFile single(long ordinal, byte[] record, int off, int len) throws IOException {
    RunWriter w = dir.newRun(RunKind.ORDINAL, plan.blockBytes());
    try {
      w.write(0, 0, ordinal, null, 0, 0, record, off, len);
      return dir.finished(w.finish());
    } finally {
      w.close();
    }
  }

  /**
   * Merges the smallest runs into bigger ones, pass by pass, until at most {@code target} are left.
   * A pass that only has to remove a few runs merges just enough of the smallest.
   */
  private List<RunFile> reduce(List<RunFile> runs, int target, boolean dedup, String by)
      throws IOException {
    List<RunFile> left = new ArrayList<>(runs);
    while (left.size() > target) {
      passes++;
      keyPasses += dedup ? 1 : 0;
      left.sort(Comparator.comparingLong(RunFile::bytes));
      int excess = left.size() - target;
      int merged = excess <= plan.fanIn() - 1 ? excess + 1 : left.size();
      long total = left.subList(0, merged).stream().mapToLong(RunFile::entries).sum();
      List<RunFile> next = new ArrayList<>();
      long done = 0;
      report(by, left.size(), 0, total, true);
      for (int from = 0; from < merged; from += plan.fanIn()) {
        List<RunFile> group = left.subList(from, Math.min(merged, from + plan.fanIn()));
        if (group.size() == 1) {
          next.add(group.get(0));
          continue;
        }
        long base = done;
        RunWriter w = dir.newRun(group.get(0).kind(), plan.blockBytes());
        try {
          RunMerger.merge(
              group,
              plan.blockBytes(),
              laterFirst,
              dedup,
              w,
              n -> report(by, group.size(), base + n, total, false));
          next.add(dir.finished(w.finish()));
        } finally {
          w.close();
        }
        for (RunFile r : group) {
          done += r.entries();
          dir.delete(r);
        }
        List<RunFile> now = new ArrayList<>(next);
        now.addAll(left.subList(Math.min(merged, from + plan.fanIn()), left.size()));
        checkpoints.runs(now, !dedup);
      }
      report(by, left.size(), total, total, true); // the pass's end
      next.addAll(left.subList(merged, left.size()));
      left = next;
    }
    return left;
  }

  private long finalMerge(List<RunFile> runs, boolean dedup, EntrySink sink, String by)
      throws IOException {
    passes++;
    keyPasses += dedup ? 1 : 0;
    long total = runs.stream().mapToLong(RunFile::entries).sum();
    report(by, runs.size(), 0, total, true);
    long written =
        RunMerger.merge(
            runs,
            plan.blockBytes(),
            laterFirst,
            dedup,
            sink,
            n -> report(by, runs.size(), n, total, false));
    report(by, runs.size(), total, total, true); // the pass's end, or its bar stays where it was
    for (RunFile r : runs) {
      dir.delete(r);
    }
    return written;
  }

  private void report(String by, int runs, long done, long total, boolean force) {
    long now = System.nanoTime();
    if (force || now - lastReport > PROGRESS_NANOS) {
      lastReport = now;
      listener.progress(
          new PhaseProgress(
              "merge " + passes + " by " + by,
              PhaseProgress.Unit.ENTRIES,
              done,
              total,
              java.util.Map.of("runs", (long) runs)));
    }
  }
}
