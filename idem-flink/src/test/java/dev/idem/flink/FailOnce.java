package dev.idem.flink;

import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.flink.api.common.functions.MapFunction;
import org.apache.flink.api.common.state.CheckpointListener;

/**
 * Passes records through, and throws once, after {@code after} records and after a checkpoint has
 * completed, so that the job restarts from a checkpoint taken mid-stream (with {@link
 * ReplayableSource}, which waits half-way for a checkpoint, choose {@code after} past the half).
 */
final class FailOnce implements MapFunction<String, String>, CheckpointListener {

  private static final long serialVersionUID = 1L;
  static final AtomicBoolean FAILED = new AtomicBoolean();
  private static volatile boolean checkpointed;

  private final long after;
  private long seen;

  FailOnce(long after) {
    this.after = after;
  }

  static void reset() {
    FAILED.set(false);
    checkpointed = false;
  }

  @Override
  public String map(String value) {
    if (++seen > after && checkpointed && FAILED.compareAndSet(false, true)) {
      throw new IllegalStateException("injected failure after " + seen + " records");
    }
    return value;
  }

  @Override
  public void notifyCheckpointComplete(long checkpointId) {
    checkpointed = true;
  }
}
