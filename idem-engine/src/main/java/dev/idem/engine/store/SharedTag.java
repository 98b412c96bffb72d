package dev.idem.engine.store;

import com.dynatrace.hash4j.hashing.Hashing;

/**
 * The mark a worker leaves on a key in a {@link SharedSeenSet}: 8 bytes, a 64-bit hash of the
 * worker's id and the record's position. Only equality matters ("is this mark mine, for this
 * record?"), and 8 bytes keep the shared store small: two different marks collide with
 * probability 2^-64.
 */
public final class SharedTag {

  private SharedTag() {}

  public static byte[] of(String worker, int file, long line) {
    long h = Hashing.xxh3_64().hashStream().putString(worker).putInt(file).putLong(line)
        .getAsLong();
    byte[] tag = new byte[8];
    for (int i = 0; i < 8; i++) {
      tag[i] = (byte) (h >>> (56 - 8 * i));
    }
    return tag;
  }
}
