package dev.idem.engine.records;

import java.util.Arrays;

/** A reusable buffer that receives one record's key: {@code bytes()[0, length())}. */
final class KeyBuffer {

  private byte[] bytes = new byte[256];
  private int length;

  /** Copies {@code src[offset, offset + len)} in as the key. */
  public void set(byte[] src, int offset, int len) {
    if (len > bytes.length) {
      bytes = new byte[Math.max(len, 2 * bytes.length)];
    }
    System.arraycopy(src, offset, bytes, 0, len);
    length = len;
  }

  /** The key's bytes (valid up to {@link #length()}; the array is reused). */
  public byte[] bytes() {
    return bytes;
  }

  public int length() {
    return length;
  }

  /** A copy of exactly the key's bytes. */
  public byte[] copy() {
    return Arrays.copyOf(bytes, length);
  }
}
