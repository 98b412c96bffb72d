package dev.idem.core.shared;

import com.dynatrace.hash4j.hashing.Hasher64;
import com.dynatrace.hash4j.hashing.Hashing;

/**
 * The marks one worker leaves on keys in a {@link SharedSeenSet}: 8 bytes, a 64-bit hash of the
 * worker's id and the record's position. Only equality matters ("is this mark mine, for this
 * record?"), and 8 bytes keep the shared store small: two different marks collide with probability
 * 2^-64. Written into the caller's arrays: no allocation per record.
 */
public final class SharedTag {

  /** The length of a tag in bytes. */
  public static final int BYTES = 8;

  private static final Hasher64 HASH = Hashing.xxh3_64();

  private final long worker;

  /** The tags of the worker named {@code workerId}. */
  public SharedTag(String workerId) {
    this.worker = HASH.hashCharsToLong(workerId);
  }

  /** Writes the tag of the record at {@code line} of input {@code file} into {@code tag}. */
  public void write(int file, long line, byte[] tag) {
    long h = HASH.hashLongLongLongToLong(worker, file, line);
    for (int i = 0; i < BYTES; i++) {
      tag[i] = (byte) (h >>> (56 - 8 * i));
    }
  }
}
