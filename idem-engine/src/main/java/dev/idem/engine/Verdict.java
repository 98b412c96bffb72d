package dev.idem.engine;

/** What a windowed check decided about one event. */
public enum Verdict {
  /** The first event of its key in its window: emit it. */
  KEPT,
  /** Its key was kept recently enough: drop it. */
  DUPLICATE,
  /**
   * Older than the watermark allows (its window's state is gone): no exact answer is possible; the
   * caller's late-data policy decides (drop, emit, or side output).
   */
  LATE
}
