package dev.idem.server;

/** One client connection's state: its protocol, its login, its name. */
final class Session {
  final long id;
  final Reply reply = new Reply();
  final String address;
  boolean authenticated;
  String name = "";
  String library = "";

  /** Close the connection once the replies so far are written (QUIT, a protocol error). */
  boolean closeAfterReply;

  Session(long id, String address, boolean authenticated) {
    this.id = id;
    this.address = address;
    this.authenticated = authenticated;
  }
}
