package dev.idem.core.filter;

import java.io.IOException;
import java.nio.file.Path;

/**
 * A snapshot that cannot be used: the message names the file (or says it was a byte array) and the
 * fault.
 */
public final class SnapshotException extends IOException {

  private static final long serialVersionUID = 1L;

  /** How the message names a snapshot that came from a byte array. */
  static final String BYTES = "filter snapshot bytes";

  private final transient Path file;

  /** {@code file} is {@code null} for a snapshot read from a byte array. */
  SnapshotException(Path file, String fault) {
    super((file != null ? file.toString() : BYTES) + ": " + fault);
    this.file = file;
  }

  /** The file that was refused, or {@code null} when it was a byte array. */
  public Path file() {
    return file;
  }
}
