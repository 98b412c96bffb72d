package dev.idem.engine.records;

import java.io.IOException;

/**
 * A record without a usable key under the {@code fail} policy. The job checkpointed just before it,
 * so the same command with {@code --on-bad-record skip} (or {@code quarantine=FILE}) continues from
 * there.
 */
public final class BadRecordException extends IOException {

  private static final long serialVersionUID = 1L;

  public BadRecordException(String source, long line, String reason, boolean resumable) {
    super(
        source
            + ":"
            + line
            + ": "
            + reason
            + (resumable
                ? "; the job stopped after a checkpoint: rerun the same command with --on-bad-record "
                    + "skip or quarantine=FILE to go past it"
                : "; rerun with --on-bad-record skip or quarantine=FILE to go past it"));
  }

  private BadRecordException(String message) {
    super(message);
  }

  /**
   * A bad record before any record had a usable key: more likely a key named wrong than a bad
   * record, so the advice is to check the key, not to skip (which would drop every record).
   */
  public static BadRecordException beforeAnyKey(String source, long line, String reason) {
    return new BadRecordException(
        source
            + ":"
            + line
            + ": "
            + reason
            + "; no record before it had a key either: check --key (or --column); "
            + "--on-bad-record skip would drop every record like it");
  }
}
