package dev.idem.engine.corpus;

import java.nio.charset.StandardCharsets;

/**
 * Text written back as a JSON string: UTF-8, with {@code "} and {@code \} escaped, control
 * characters as {@code \n}, {@code \t}, ... or a six-character u00XX escape, and a lone surrogate
 * (which only an escape can carry) as a uXXXX escape, so that a JSON parser reads back exactly the
 * text, whatever escapes the record used before.
 */
final class JsonStrings {

  private static final byte[] HEX = "0123456789abcdef".getBytes(StandardCharsets.US_ASCII);

  private JsonStrings() {}

  /** {@code text} as a JSON string, quotes included. */
  static String quote(String text) {
    TextBytes b = new TextBytes();
    int n = write(text, 0, text.length(), b, 0);
    return new String(b.bytes, 0, n, StandardCharsets.UTF_8);
  }

  /**
   * Writes {@code text[from, to)} as a JSON string, quotes included, into {@code out} from {@code
   * at}; returns where it ends.
   */
  static int write(String text, int from, int to, TextBytes out, int at) {
    byte[] b = out.room(at + 6 * (to - from) + 2);
    int n = at;
    b[n++] = '"';
    int i = from;
    while (i < to) {
      char c = text.charAt(i++);
      if (c < 0x80) {
        if (c >= 0x20 && c != '"' && c != '\\') {
          b[n++] = (byte) c;
          continue;
        }
        b[n++] = '\\';
        switch (c) {
          case '"' -> b[n++] = '"';
          case '\\' -> b[n++] = '\\';
          case '\n' -> b[n++] = 'n';
          case '\r' -> b[n++] = 'r';
          case '\t' -> b[n++] = 't';
          case '\b' -> b[n++] = 'b';
          case '\f' -> b[n++] = 'f';
          default -> n = unicode(b, n, c);
        }
      } else if (c < 0x800) {
        b[n++] = (byte) (0xc0 | (c >> 6));
        b[n++] = (byte) (0x80 | (c & 0x3f));
      } else if (Character.isSurrogate(c)) {
        if (Character.isHighSurrogate(c) && i < to && Character.isLowSurrogate(text.charAt(i))) {
          int cp = Character.toCodePoint(c, text.charAt(i++));
          b[n++] = (byte) (0xf0 | (cp >> 18));
          b[n++] = (byte) (0x80 | ((cp >> 12) & 0x3f));
          b[n++] = (byte) (0x80 | ((cp >> 6) & 0x3f));
          b[n++] = (byte) (0x80 | (cp & 0x3f));
        } else {
          b[n++] = '\\';
          n = unicode(b, n, c); // a lone surrogate: not UTF-8, so escaped
        }
      } else {
        b[n++] = (byte) (0xe0 | (c >> 12));
        b[n++] = (byte) (0x80 | ((c >> 6) & 0x3f));
        b[n++] = (byte) (0x80 | (c & 0x3f));
      }
    }
    b[n++] = '"';
    return n;
  }

  /** {@code uXXXX} after a backslash already written. */
  private static int unicode(byte[] b, int n, char c) {
    b[n++] = 'u';
    b[n++] = HEX[(c >> 12) & 0xf];
    b[n++] = HEX[(c >> 8) & 0xf];
    b[n++] = HEX[(c >> 4) & 0xf];
    b[n++] = HEX[c & 0xf];
    return n;
  }
}
