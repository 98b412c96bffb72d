package dev.idem.core.filter;

import java.io.IOException;
import java.nio.file.Path;

/** A snapshot file that cannot be used: the message names the file and the fault. */
public final class SnapshotException extends IOException {

  private static final long serialVersionUID = 1L;

  private final transient Path file;

  SnapshotException(Path file, String fault) {
    super(file + ": " + fault);
    this.file = file;
  }

  /** The file that was refused. */
  public Path file() {
    return file;
  }
}
