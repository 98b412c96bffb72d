package dev.idem.core.window;

/** How "seen recently" is measured. */
public enum WindowKind {
  /**
   * Fixed windows of size W aligned to the epoch, like Flink's tumbling event-time windows: the
   * window of time t is ⌊t / W⌋, and a key is a duplicate if it was kept earlier in the same
   * window. At 10:09:59 and 10:10:01 the same click is two events (two windows of 10 minutes).
   */
  TUMBLING,
  /**
   * Each kept event claims its key for W on both sides of its event time, like Beam's {@code
   * Deduplicate.withDuration}: an event is a duplicate if an event of the same key with event time
   * less than W away was kept before it. The same click at 10:09:59 and 10:10:01 is one event.
   */
  SLIDING
}
