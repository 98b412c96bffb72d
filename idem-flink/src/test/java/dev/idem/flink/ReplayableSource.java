package dev.idem.flink;

import java.util.List;
import org.apache.flink.api.common.state.CheckpointListener;
import org.apache.flink.api.common.state.ListState;
import org.apache.flink.api.common.state.ListStateDescriptor;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.runtime.state.FunctionInitializationContext;
import org.apache.flink.runtime.state.FunctionSnapshotContext;
import org.apache.flink.streaming.api.checkpoint.CheckpointedFunction;
import org.apache.flink.streaming.api.functions.source.legacy.SourceFunction;

/**
 * A bounded, replayable source of {@link DuplicatedKeys} records {@code [0, count)}: its position
 * is checkpointed, so a restore replays from the last checkpoint. It can hold still at {@link
 * #pauseAt} (without blocking checkpoints) so that a test can take a savepoint mid-stream. So that
 * a failure test restarts from a checkpoint taken mid-stream, it waits half-way until a checkpoint
 * has completed, and pauses a millisecond every 50 records.
 *
 * <p>The legacy {@code SourceFunction} is used on purpose: it runs in its own thread, so it can
 * wait while the task still takes checkpoints. Parallelism 1 only. The static fields are for the
 * test that runs the job in the same JVM; one such job at a time.
 */
@SuppressWarnings("deprecation")
final class ReplayableSource
    implements SourceFunction<String>, CheckpointedFunction, CheckpointListener {

  private static final long serialVersionUID = 1L;

  /** Records at or after this position wait until it is raised (or the job is cancelled). */
  static volatile long pauseAt = Long.MAX_VALUE;

  /** The position reached, for the test to watch. */
  static volatile long position;

  /** Checkpoints completed (all tasks were running), over all jobs since {@link #reset}. */
  static volatile int checkpoints;

  /** The position restored from a checkpoint, or -1 when the source started fresh. */
  static volatile long restoredFrom = -1;

  private final long count;
  private transient ListState<Long> state;
  private long next;
  private volatile boolean running = true;
  private volatile boolean checkpointed;

  ReplayableSource(long count) {
    this.count = count;
  }

  static void reset() {
    pauseAt = Long.MAX_VALUE;
    position = 0;
    checkpoints = 0;
    restoredFrom = -1;
  }

  @Override
  public void run(SourceContext<String> ctx) throws Exception {
    while (running && next < count) {
      if (next >= pauseAt || (next >= count / 2 && !checkpointed)) {
        Thread.sleep(5);
        continue;
      }
      synchronized (ctx.getCheckpointLock()) {
        ctx.collect(DuplicatedKeys.record(next));
        next++;
        position = next;
      }
      if (next % 50 == 0) {
        Thread.sleep(1);
      }
    }
  }

  @Override
  public void notifyCheckpointComplete(long checkpointId) {
    checkpointed = true;
    checkpoints++;
  }

  @Override
  public void cancel() {
    running = false;
  }

  @Override
  public void snapshotState(FunctionSnapshotContext context) throws Exception {
    state.update(List.of(next));
  }

  @Override
  public void initializeState(FunctionInitializationContext context) throws Exception {
    state =
        context
            .getOperatorStateStore()
            .getListState(new ListStateDescriptor<>("position", Types.LONG));
    for (Long p : state.get()) {
      next = p;
    }
    if (context.isRestored()) {
      restoredFrom = next;
    }
  }
}
