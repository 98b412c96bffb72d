package dev.idem.core.shared;

import java.io.IOException;

/**
 * A {@link SharedSeenSet} forgot marks it had acknowledged (a Redis restarted without persistence,
 * or flushed): the answers it gives now would call keys new that workers emitted before, so the job
 * must stop before it acts on any of them. The message says what happened to the store; the job
 * adds what it leaves behind.
 */
public final class SharedSetLostException extends IOException {

  private static final long serialVersionUID = 1L;

  public SharedSetLostException(String message) {
    super(message);
  }

  public SharedSetLostException(String message, SharedSetLostException cause) {
    super(message, cause);
  }
}
