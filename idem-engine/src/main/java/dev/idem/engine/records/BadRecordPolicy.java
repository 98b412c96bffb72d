package dev.idem.engine.records;

import java.nio.file.Path;

/** What to do with a record that has no usable key. Never a silent drop: all are counted. */
public sealed interface BadRecordPolicy {

  /** Stop with exit status 1, naming file, line and reason, after a checkpoint. The default. */
  record Fail() implements BadRecordPolicy {}

  /** Count it and go on. */
  record Skip() implements BadRecordPolicy {}

  /** Write it, as read, to a file, count it and go on. */
  record Quarantine(Path file) implements BadRecordPolicy {}

  /**
   * Parses {@code fail}, {@code skip} or {@code quarantine=FILE}.
   *
   * @throws IllegalArgumentException listing the choices
   */
  static BadRecordPolicy parse(String spec) {
    if (spec.equals("fail")) {
      return new Fail();
    }
    if (spec.equals("skip")) {
      return new Skip();
    }
    if (spec.startsWith("quarantine=") && spec.length() > "quarantine=".length()) {
      return new Quarantine(Path.of(spec.substring("quarantine=".length())));
    }
    throw new IllegalArgumentException(
        "'" + spec + "' is not a bad-record policy; use fail, skip or quarantine=FILE");
  }
}
