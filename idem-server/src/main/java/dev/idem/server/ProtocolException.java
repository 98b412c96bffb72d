package dev.idem.server;

/**
 * A request that breaks the protocol or a limit: its message is the Redis-style error the client
 * gets ({@code ERR Protocol error: ...}), after which the connection is closed, as Redis does.
 */
public final class ProtocolException extends Exception {
  private static final long serialVersionUID = 1L;

  ProtocolException(String message) {
    super(message, null, false, false);
  }
}
