package dev.idem.engine.sort;

import dev.idem.engine.output.OutputFile;
import dev.idem.engine.run.JobListener;
import dev.idem.engine.run.ResumableRun;
import java.io.IOException;
import java.io.OutputStream;
import java.util.List;

/**
 * The end of a sort-dedup, once its inputs are read: the output written (the header, then the
 * survivors: straight from the sort buffer when every record fit in it, else merged from the runs
 * by {@link MergePhase}), with a checkpoint after each merge, and for a resumable job the output
 * synced before the last checkpoint says the job is done.
 */
final class OutputPhase {

  /**
   * What writing the output did.
   *
   * @param kept records written
   * @param passes merge passes made (none when all fit in memory)
   * @param keyPasses of those, the passes by key
   * @param outputBytes the output's length
   */
  record Written(long kept, int passes, int keyPasses, long outputBytes) {}

  private final SortDedupSpec spec;
  private final SortPlan plan;
  private final OutputStream stdout;
  private final JobListener listener;

  /** The resumable job's state, or {@code null}. */
  private final ResumableRun<SortState.Progress> state;

  private final ReadPhase read;
  private final RunDirectory dir;

  OutputPhase(
      SortDedupSpec spec,
      SortPlan plan,
      OutputStream stdout,
      JobListener listener,
      ResumableRun<SortState.Progress> state,
      ReadPhase read,
      RunDirectory dir) {
    this.spec = spec;
    this.plan = plan;
    this.stdout = stdout;
    this.listener = listener;
    this.state = state;
    this.read = read;
    this.dir = dir;
  }

  /**
   * Writes the output, from the start or, when {@code fromPositions}, from the runs by input
   * position that a resumed job's checkpoint names.
   */
  Written write(boolean fromPositions) throws IOException {
    long kept;
    int passes = 0;
    int keyPasses = 0;
    long outputBytes;
    SortedRuns runs = read.runs();
    try (OutputFile out =
        spec.output() != null
            ? OutputFile.open(spec.output())
            : OutputFile.stream("<stdout>", stdout)) {
      byte[] header = read.header();
      if (header != null) {
        out.write(header, 0, header.length);
      }
      EntrySink sink =
          (hi, lo, ord, key, keyOff, keyLen, record, off, len) -> out.write(record, off, len);
      if (runs.allInMemory()) { // no runs at all
        kept = runs.drainInMemory(sink, spec.order());
      } else {
        runs.finish(dir);
        if (!fromPositions) {
          checkpoint(SortState.Phase.MERGING, runs.list());
        }
        MergePhase merge =
            new MergePhase(
                dir,
                plan,
                spec.keep() == SortDedupSpec.Keep.LAST,
                listener,
                (now, byPosition) ->
                    checkpoint(
                        byPosition ? SortState.Phase.POSITIONS : SortState.Phase.MERGING, now));
        kept =
            fromPositions
                ? merge.fromPositions(runs.list(), sink)
                : spec.order() == SortDedupSpec.Order.INPUT
                    ? merge.inInputOrder(runs.list(), sink, read.meanRecordBytes())
                    : merge.inKeyOrder(runs.list(), sink);
        passes = merge.passes();
        keyPasses = merge.keyPasses();
      }
      out.flush();
      outputBytes = out.length();
      if (state != null) {
        out.sync();
        state.reached(SortState.Step.OUTPUT_WRITTEN);
      }
    }
    if (state != null) {
      state.commit(
          read.progress(SortState.Phase.DONE, List.of(), read.ordinal(), kept, outputBytes));
      dir.deleteMerged();
    }
    return new Written(kept, passes, keyPasses, outputBytes);
  }

  /**
   * A checkpoint while merging, naming {@code now}, all synced; then the runs merged away are
   * deleted.
   */
  private void checkpoint(SortState.Phase phase, List<RunFile> now) throws IOException {
    if (state == null) {
      return;
    }
    state.reached(SortState.Step.RUNS_MERGED);
    state.commit(read.progress(phase, now, read.ordinal(), 0, 0));
    dir.deleteMerged();
  }
}
