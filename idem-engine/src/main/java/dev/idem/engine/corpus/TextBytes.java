package dev.idem.engine.corpus;

import java.util.Arrays;

/**
 * A reusable byte buffer that text is encoded into before it is hashed: UTF-8, with a lone
 * surrogate (which a JSON uD800 escape can hold) encoded as its own three bytes, as WTF-8 does, so
 * that two different texts never give the same bytes. Not thread-safe.
 */
final class TextBytes {

  byte[] bytes = new byte[256];
  int length;

  /** Encodes {@code text[from, to)} into {@link #bytes}; returns the length. */
  int encode(String text, int from, int to) {
    int need = 3 * (to - from);
    if (bytes.length < need) {
      bytes = new byte[Math.max(need, 2 * bytes.length)];
    }
    byte[] b = bytes;
    int n = 0;
    int i = from;
    while (i < to) {
      char c = text.charAt(i++);
      if (c < 0x80) {
        b[n++] = (byte) c;
      } else if (c < 0x800) {
        b[n++] = (byte) (0xc0 | (c >> 6));
        b[n++] = (byte) (0x80 | (c & 0x3f));
      } else if (Character.isHighSurrogate(c)
          && i < to
          && Character.isLowSurrogate(text.charAt(i))) {
        int cp = Character.toCodePoint(c, text.charAt(i++));
        b[n++] = (byte) (0xf0 | (cp >> 18));
        b[n++] = (byte) (0x80 | ((cp >> 12) & 0x3f));
        b[n++] = (byte) (0x80 | ((cp >> 6) & 0x3f));
        b[n++] = (byte) (0x80 | (cp & 0x3f));
      } else {
        b[n++] = (byte) (0xe0 | (c >> 12));
        b[n++] = (byte) (0x80 | ((c >> 6) & 0x3f));
        b[n++] = (byte) (0x80 | (c & 0x3f));
      }
    }
    length = n;
    return n;
  }

  /** Makes room for {@code n} bytes, keeping none. */
  byte[] room(int n) {
    if (bytes.length < n) {
      bytes = Arrays.copyOf(bytes, Math.max(n, 2 * bytes.length));
    }
    return bytes;
  }
}
