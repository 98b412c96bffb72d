package dev.idem.engine.plan;

import dev.idem.core.filter.FilterType;
import dev.idem.engine.DedupMode;
import dev.idem.engine.state.ExactTierPlacement;
import java.time.Duration;

/**
 * The run {@link Planner} recommends, as the settings it needs rather than a command line: the
 * command ({@code idem plan}) renders it with the user's key, inputs and output.
 *
 * @param tool what to run
 * @param exactTier where a dedup job's exact tier goes, or {@code null} to leave it to the job
 * @param expectedKeys the distinct keys to size for, or 0 to leave it to the job
 * @param memoryBytes the heap the job may plan for, or 0 for no limit given
 * @param fpp the filter's false-positive rate, or 0 for the job's default
 * @param mode exact or approximate
 * @param filter the filter (or, for {@link Tool#FILTER_BUILD}, the structure), or {@code null} for
 *     the default
 * @param window the time window of a windowed job, or {@code null}
 * @param resumable whether the job should keep a state directory
 */
public record RecommendedRun(
    Tool tool,
    ExactTierPlacement.Kind exactTier,
    long expectedKeys,
    long memoryBytes,
    double fpp,
    DedupMode mode,
    FilterType filter,
    Duration window,
    boolean resumable) {

  /** What runs. */
  public enum Tool {
    /** {@code idem dedup}. */
    DEDUP,
    /** {@code idem sort-dedup}. */
    SORT_DEDUP,
    /** {@code idem filter build}: a structure whose keys can be removed, for the library. */
    FILTER_BUILD,
    /** Nothing fits: plan again with more memory. */
    NONE
  }

  /** A resumable, exact dedup job with its exact tier in {@code exactTier}. */
  static RecommendedRun exact(ExactTierPlacement.Kind exactTier, long expectedKeys, long memory) {
    return new RecommendedRun(
        Tool.DEDUP, exactTier, expectedKeys, memory, 0, DedupMode.EXACT, null, null, true);
  }

  /** A resumable dedup job within time windows. */
  static RecommendedRun windowed(Duration window) {
    return new RecommendedRun(Tool.DEDUP, null, 0, 0, 0, DedupMode.EXACT, null, window, true);
  }

  /** An approximate dedup job: a filter alone, at {@code fpp}. */
  static RecommendedRun approximate(long expectedKeys, double fpp, FilterType filter) {
    return new RecommendedRun(
        Tool.DEDUP, null, expectedKeys, 0, fpp, DedupMode.APPROXIMATE, filter, null, false);
  }

  /** {@code idem sort-dedup} in {@code memory}. */
  static RecommendedRun sortDedup(long memory) {
    return new RecommendedRun(
        Tool.SORT_DEDUP, null, 0, memory, 0, DedupMode.EXACT, null, null, false);
  }

  /** A structure of {@code type} whose keys can be removed ({@code fpp} 0 for an exact one). */
  static RecommendedRun deletable(FilterType type, long expectedKeys, double fpp) {
    return new RecommendedRun(
        Tool.FILTER_BUILD, null, expectedKeys, 0, fpp, DedupMode.EXACT, type, null, false);
  }

  /** Nothing fits the budget. */
  static RecommendedRun none() {
    return new RecommendedRun(Tool.NONE, null, 0, 0, 0, DedupMode.EXACT, null, null, false);
  }
}
