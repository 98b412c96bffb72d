package dev.idem.server;

/** A command that cannot be carried out: its message is the error reply, code first. */
final class CommandException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  CommandException(String message) {
    super(message, null, false, false);
  }

  static final CommandException WRONGTYPE =
      new CommandException("WRONGTYPE Operation against a key holding the wrong kind of value");
}
