package dev.idem.engine.job;

import dev.idem.core.window.WindowKind;
import dev.idem.engine.records.EventTime;
import dev.idem.engine.records.KeySpec;
import java.nio.file.Path;
import java.time.Duration;

/**
 * The windowed form of a dedup job: "seen in the last W" instead of "ever seen".
 *
 * @param kind tumbling or sliding
 * @param size the window W
 * @param timeField where the event time is (a JSON field or a column), or {@code null} for
 *     processing time (not reproducible after a crash: a resumed job sees other times)
 * @param timeFormat how the event time is written
 * @param maxDelay how far out of order events may arrive
 * @param allowedLateness how long a passed window's state is kept
 * @param late what to do with events older than the watermark allows
 */
public record WindowSpec(
    WindowKind kind,
    Duration size,
    KeySpec timeField,
    EventTime timeFormat,
    Duration maxDelay,
    Duration allowedLateness,
    LatePolicy late) {

  /** What happens to a late event. Every late event is counted. */
  public sealed interface LatePolicy {
    /** Drop it (the default). */
    record Drop() implements LatePolicy {}

    /** Write it to the output as if kept: it cannot be checked any more. */
    record Emit() implements LatePolicy {}

    /** Write it, as read, to a separate file. */
    record SideOutput(Path file) implements LatePolicy {}

    /** Parses {@code drop}, {@code emit} or {@code side-output=FILE}. */
    static LatePolicy parse(String spec) {
      if (spec.equals("drop")) {
        return new Drop();
      }
      if (spec.equals("emit")) {
        return new Emit();
      }
      if (spec.startsWith("side-output=") && spec.length() > "side-output=".length()) {
        return new SideOutput(Path.of(spec.substring("side-output=".length())));
      }
      throw new IllegalArgumentException(
          "'" + spec + "' is not a late-data policy; use drop, emit or side-output=FILE");
    }
  }

  /** Parses a late-data policy from the command line. */
  public static LatePolicy latePolicy(String spec) {
    return LatePolicy.parse(spec);
  }

  /** A stable description for the manifest. */
  public String describe() {
    return kind.name().toLowerCase(java.util.Locale.ROOT)
        + " "
        + size.toMillis()
        + "ms, time "
        + (timeField == null
            ? "processing"
            : timeField.describe() + " as " + timeFormat.displayName())
        + ", max delay "
        + maxDelay.toMillis()
        + "ms, allowed lateness "
        + allowedLateness.toMillis()
        + "ms";
  }
}
