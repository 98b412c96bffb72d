package dev.idem.flink;

import org.apache.flink.metrics.Counter;
import org.apache.flink.metrics.MetricGroup;
import org.apache.flink.metrics.SimpleCounter;

/**
 * The operator's counters, in the metric group {@code idem} of the operator. Each mode registers
 * the counters that mean something for it; the others are plain unregistered counters, so the hot
 * path never checks which mode it is in.
 */
final class DedupMetrics {

  static final String GROUP = "idem";

  /** Every record seen. */
  final Counter records;

  /** Records emitted as the first of their key (or window). */
  final Counter kept;

  /** Records dropped as repeats. */
  final Counter duplicates;

  /** Keyed-state reads: records the filter could not call new (exact mode). */
  final Counter tier2Reads;

  /** New keys the filter called "maybe seen" and keyed state proved new (exact mode). */
  final Counter falsePositivesRescued;

  /** Records too late for their window's state (windowed mode). */
  final Counter late;

  /** The {@code idem} group itself, for gauges a mode adds. */
  final MetricGroup group;

  private DedupMetrics(MetricGroup group, boolean tiered, boolean windowed) {
    this.group = group;
    this.records = group.counter("records");
    this.kept = group.counter("kept");
    this.duplicates = group.counter("duplicates");
    this.tier2Reads = tiered ? group.counter("tier2Reads") : new SimpleCounter();
    this.falsePositivesRescued =
        tiered ? group.counter("falsePositivesRescued") : new SimpleCounter();
    this.late = windowed ? group.counter("late") : new SimpleCounter();
  }

  static DedupMetrics exact(MetricGroup operatorGroup) {
    return new DedupMetrics(operatorGroup.addGroup(GROUP), true, false);
  }

  static DedupMetrics approximate(MetricGroup operatorGroup) {
    return new DedupMetrics(operatorGroup.addGroup(GROUP), false, false);
  }

  static DedupMetrics windowed(MetricGroup operatorGroup) {
    return new DedupMetrics(operatorGroup.addGroup(GROUP), false, true);
  }
}
