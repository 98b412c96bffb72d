package dev.idem.cli;

/**
 * A failure the user can act on (a missing file, a corrupt snapshot, bad input): printed as one
 * line, {@code idem: <message>}, with exit status 1 and no stack trace.
 */
final class UserException extends RuntimeException {

  private static final long serialVersionUID = 1L;

  UserException(String message) {
    super(message);
  }

  UserException(String message, Throwable cause) {
    super(message, cause);
  }
}
