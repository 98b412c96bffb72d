package dev.idem.server;

import io.netty.buffer.ByteBuf;
import java.nio.charset.StandardCharsets;
import java.util.Locale;

/**
 * Writes replies into a connection's output buffer in the protocol the client chose: RESP2, or
 * RESP3 after {@code HELLO 3}, where booleans, maps, nulls and doubles have types of their own (in
 * RESP2 they are integers, flat arrays, null bulk strings and bulk strings, as Redis writes them).
 * Counts the replies written, which is the connection's pipeline depth.
 */
final class Reply {

  private static final byte[] CRLF = {'\r', '\n'};
  private static final byte[][] SMALL = new byte[1024][];

  static {
    for (int i = 0; i < SMALL.length; i++) {
      SMALL[i] = Integer.toString(i).getBytes(StandardCharsets.US_ASCII);
    }
  }

  private ByteBuf out;
  private int protocol = 2;
  private long replies;

  void target(ByteBuf buffer) {
    this.out = buffer;
  }

  ByteBuf buffer() {
    return out;
  }

  int protocol() {
    return protocol;
  }

  void protocol(int version) {
    this.protocol = version;
  }

  boolean resp3() {
    return protocol == 3;
  }

  /** Top-level replies written so far. */
  long count() {
    return replies;
  }

  /** Marks the end of one command's reply. */
  void done() {
    replies++;
  }

  void simple(String s) {
    out.writeByte('+');
    out.writeCharSequence(s, StandardCharsets.UTF_8);
    out.writeBytes(CRLF);
  }

  void ok() {
    simple("OK");
  }

  /** An error: {@code message} starts with its code ({@code ERR}, {@code WRONGTYPE}, ...). */
  void error(String message) {
    out.writeByte('-');
    out.writeCharSequence(message.replace('\r', ' ').replace('\n', ' '), StandardCharsets.UTF_8);
    out.writeBytes(CRLF);
  }

  void integer(long n) {
    out.writeByte(':');
    number(n);
  }

  /** A boolean: RESP3's {@code #t}/{@code #f}, RESP2's integer 1 or 0. */
  void bool(boolean b) {
    if (resp3()) {
      out.writeByte('#');
      out.writeByte(b ? 't' : 'f');
      out.writeBytes(CRLF);
    } else {
      integer(b ? 1 : 0);
    }
  }

  void bulk(byte[] b) {
    bulk(b, 0, b.length);
  }

  void bulk(byte[] b, int from, int length) {
    out.writeByte('$');
    number(length);
    out.writeBytes(b, from, length);
    out.writeBytes(CRLF);
  }

  void bulk(String s) {
    bulk(s.getBytes(StandardCharsets.UTF_8));
  }

  /** A text of many lines (INFO): RESP3's verbatim string, RESP2's bulk string. */
  void verbatim(String s) {
    if (resp3()) {
      byte[] b = s.getBytes(StandardCharsets.UTF_8);
      out.writeByte('=');
      number(b.length + 4L);
      out.writeCharSequence("txt:", StandardCharsets.US_ASCII);
      out.writeBytes(b);
      out.writeBytes(CRLF);
    } else {
      bulk(s);
    }
  }

  void nil() {
    if (resp3()) {
      out.writeByte('_');
      out.writeBytes(CRLF);
    } else {
      out.writeCharSequence("$-1\r\n", StandardCharsets.US_ASCII);
    }
  }

  void doubleValue(double d) {
    String text =
        Double.isInfinite(d)
            ? (d > 0 ? "inf" : "-inf")
            : Double.isNaN(d) ? "nan" : String.format(Locale.ROOT, "%.17g", d).strip();
    if (resp3()) {
      out.writeByte(',');
      out.writeCharSequence(text, StandardCharsets.US_ASCII);
      out.writeBytes(CRLF);
    } else {
      bulk(text);
    }
  }

  void array(long n) {
    out.writeByte('*');
    number(n);
  }

  /** A map of {@code n} pairs: RESP3's map, RESP2's flat array of 2n. */
  void map(long n) {
    if (resp3()) {
      out.writeByte('%');
      number(n);
    } else {
      array(2 * n);
    }
  }

  /** A set of {@code n}: RESP3's set, RESP2's array. */
  void set(long n) {
    if (resp3()) {
      out.writeByte('~');
      number(n);
    } else {
      array(n);
    }
  }

  private void number(long n) {
    if (n >= 0 && n < SMALL.length) {
      out.writeBytes(SMALL[(int) n]);
    } else {
      out.writeCharSequence(Long.toString(n), StandardCharsets.US_ASCII);
    }
    out.writeBytes(CRLF);
  }
}
