package dev.idem.engine;

import java.io.IOException;

/**
 * A job that cannot start as asked: state from another job, inputs or options that differ from the
 * state's, a state directory in use. The message says what to change.
 */
public class JobException extends IOException {

  private static final long serialVersionUID = 1L;

  public JobException(String message) {
    super(message);
  }
}
