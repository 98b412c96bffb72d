package dev.idem.flink;

import dev.idem.core.filter.BlockedBloomFilter;
import dev.idem.core.filter.FilterSnapshot;
import dev.idem.core.filter.SnapshotException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.apache.flink.api.common.TaskInfo;
import org.apache.flink.api.common.state.ListState;
import org.apache.flink.api.common.state.ListStateDescriptor;
import org.apache.flink.api.common.state.OperatorStateStore;
import org.apache.flink.api.common.typeinfo.PrimitiveArrayTypeInfo;
import org.apache.flink.runtime.state.KeyGroupRange;
import org.apache.flink.runtime.state.KeyGroupRangeAssignment;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Tier 1 of one subtask: a blocked Bloom filter over the keys of the key groups this subtask owns,
 * kept in Flink <em>union</em> list state so that it is part of every checkpoint.
 *
 * <p>Why union state: after a rescale, the key groups a subtask owns were owned by one or more
 * different subtasks before. Union state hands every subtask every old filter; each ORs together
 * the filters of the old subtasks whose key-group ranges overlap its own. The result holds every
 * key of its key groups (and some others), so the filter is a superset and never calls a seen key
 * new. At unchanged parallelism the ranges are the same, so each subtask takes back exactly its own
 * filter and its false-positive rate does not rise across restarts.
 *
 * <p>Each state entry is the owner's subtask index, parallelism and maximum parallelism (three
 * ints) followed by the filter's snapshot ({@link FilterSnapshot#toBytes}, the format of idem's
 * snapshot files), which records the hashing too, so a filter hashed otherwise is refused.
 */
final class SubtaskFilter {

  private static final Logger LOG = LoggerFactory.getLogger(SubtaskFilter.class);
  static final String STATE_NAME = "idem-filter";
  private static final int PREFIX_BYTES = 3 * Integer.BYTES;

  private final ListState<byte[]> state;
  private final TaskInfo task;
  private final BlockedBloomFilter filter;

  private SubtaskFilter(ListState<byte[]> state, TaskInfo task, BlockedBloomFilter filter) {
    this.state = state;
    this.task = task;
    this.filter = filter;
  }

  /**
   * The filter restored from the checkpoint (merged after a rescale), or a new one sized for this
   * subtask's share of {@code expectedKeys} when there is nothing to restore.
   */
  static SubtaskFilter restoreOrCreate(
      OperatorStateStore store, TaskInfo task, long expectedKeys, double fpp) throws Exception {
    ListState<byte[]> state =
        store.getUnionListState(
            new ListStateDescriptor<>(
                STATE_NAME, PrimitiveArrayTypeInfo.BYTE_PRIMITIVE_ARRAY_TYPE_INFO));
    KeyGroupRange mine =
        KeyGroupRangeAssignment.computeKeyGroupRangeForOperatorIndex(
            task.getMaxNumberOfParallelSubtasks(),
            task.getNumberOfParallelSubtasks(),
            task.getIndexOfThisSubtask());
    List<Integer> merged = new ArrayList<>();
    BlockedBloomFilter filter = null;
    for (byte[] entry : state.get()) {
      ByteBuffer prefix = ByteBuffer.wrap(entry, 0, PREFIX_BYTES);
      int index = prefix.getInt();
      int parallelism = prefix.getInt();
      int maxParallelism = prefix.getInt();
      KeyGroupRange theirs =
          KeyGroupRangeAssignment.computeKeyGroupRangeForOperatorIndex(
              maxParallelism, parallelism, index);
      if (mine.getIntersection(theirs).getNumberOfKeyGroups() == 0) {
        continue;
      }
      BlockedBloomFilter old = fromBytes(Arrays.copyOfRange(entry, PREFIX_BYTES, entry.length));
      if (filter == null) {
        filter = old;
      } else if (!filter.hasSameLayout(old)) {
        throw new IllegalStateException(
            "the checkpoint holds idem filters of different "
                + "layouts ("
                + filter
                + " and "
                + old
                + "), so they cannot be OR-ed; it was not "
                + "written by one IdemDedup operator. Restore it with the operator uid that wrote it");
      } else {
        filter.unionWith(old);
      }
      merged.add(index);
    }
    if (filter == null) {
      long share =
          Math.max(
              1,
              (expectedKeys + task.getNumberOfParallelSubtasks() - 1)
                  / task.getNumberOfParallelSubtasks());
      filter = BlockedBloomFilter.create(share, fpp);
    } else {
      if (merged.size() > 1) {
        LOG.info(
            "idem subtask {}: OR-ed the filters of former subtasks {} after a rescale; "
                + "expected false-positive rate now {}",
            task.getIndexOfThisSubtask(),
            merged,
            filter.expectedFpp());
      }
      if (filter.targetFpp() != fpp) {
        LOG.warn(
            "idem subtask {}: kept the restored filter ({}); a changed expectedKeys or "
                + "rate applies only to a job started without state",
            task.getIndexOfThisSubtask(),
            filter);
      }
    }
    return new SubtaskFilter(state, task, filter);
  }

  /** A filter from a state entry, which must be blocked and hashed as {@link KeyFingerprinter}. */
  private static BlockedBloomFilter fromBytes(byte[] bytes) throws SnapshotException {
    FilterSnapshot s = FilterSnapshot.fromBytes(bytes);
    if (!(s.filter() instanceof BlockedBloomFilter blocked)
        || !s.fingerprinter().equals(KeyFingerprinter.HASHING)) {
      throw new IllegalStateException(
          "the checkpoint holds an idem filter ("
              + s.filter()
              + ", "
              + s.fingerprinter()
              + ") that IdemDedup did not write; restore it with the "
              + "operator uid that wrote it");
    }
    return blocked;
  }

  BlockedBloomFilter filter() {
    return filter;
  }

  /** Replaces this subtask's entry in the checkpoint with the current filter. */
  void snapshot() throws Exception {
    byte[] bits = FilterSnapshot.toBytes(filter, KeyFingerprinter.HASHING);
    ByteBuffer entry = ByteBuffer.allocate(PREFIX_BYTES + bits.length);
    entry
        .putInt(task.getIndexOfThisSubtask())
        .putInt(task.getNumberOfParallelSubtasks())
        .putInt(task.getMaxNumberOfParallelSubtasks())
        .put(bits);
    state.update(List.of(entry.array()));
  }
}
