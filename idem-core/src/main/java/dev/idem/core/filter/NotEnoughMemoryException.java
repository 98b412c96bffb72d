package dev.idem.core.filter;

/**
 * The JVM heap cannot hold a structure of the size asked for. The message says how many bytes were
 * needed and what to change (a larger {@code -Xmx}, fewer keys, a higher rate, an on-disk store);
 * nothing was built, so the caller may try again with other parameters.
 */
public final class NotEnoughMemoryException extends IllegalStateException {

  private static final long serialVersionUID = 1L;

  NotEnoughMemoryException(String message) {
    super(message);
  }
}
