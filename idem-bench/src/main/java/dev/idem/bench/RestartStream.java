package dev.idem.bench;

import java.io.BufferedReader;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The restart scenario's message stream: N distinct ids delivered with redeliveries, the same in
 * every run, with its own truth. Messages come in blocks of ten: slots 2, 5 and 8 redeliver an
 * earlier id (drawn uniformly among those delivered before), the seven others deliver the next new
 * id. So the right decision for message m is known without a set (process it iff its slot is a new
 * one) and the right output is {@code id(0), id(1), …, id(N-1)}, one per line. Ids are {@code doc-}
 * and 16 hex digits of a bijective mix of the index.
 */
final class RestartStream {

  private static final boolean[] REPEAT = {
    false, false, true, false, false, true, false, false, true, false
  };
  private static final int[] NEW_BEFORE = {0, 1, 2, 2, 3, 4, 4, 5, 6, 6};
  private static final int[] NEW_SLOT = {0, 1, 3, 4, 6, 7, 9};

  private final long distinct;

  RestartStream(long distinct) {
    if (distinct < 10) {
      throw new IllegalArgumentException("at least 10 ids, got " + distinct);
    }
    this.distinct = distinct;
  }

  long distinct() {
    return distinct;
  }

  /** Messages in the whole stream (about N / 0.7). */
  long messages() {
    return messageOfNew(distinct - 1) + 1;
  }

  /** The message that delivers new id {@code k}. */
  static long messageOfNew(long k) {
    return 10 * (k / 7) + NEW_SLOT[(int) (k % 7)];
  }

  /** True when message {@code m} delivers a new id. */
  static boolean isNew(long m) {
    return !REPEAT[(int) (m % 10)];
  }

  /** The id of message {@code m}. */
  static String idOfMessage(long m) {
    long newBefore = 7 * (m / 10) + NEW_BEFORE[(int) (m % 10)];
    return id(isNew(m) ? newBefore : Math.floorMod(mix(m ^ 0x5851f42d4c957f2dL), newBefore));
  }

  /** Id number {@code k} (built by hand: a worker makes one per message). */
  static String id(long k) {
    long h = mix(k);
    char[] c = {'d', 'o', 'c', '-', 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0};
    for (int i = 19; i >= 4; i--, h >>>= 4) {
      c[i] = Character.forDigit((int) (h & 15), 16);
    }
    return new String(c);
  }

  /** Whether {@code output} is exactly ids 0 … N-1, one per line. */
  boolean outputRight(Path output) throws IOException {
    try (BufferedReader r = Files.newBufferedReader(output, StandardCharsets.US_ASCII)) {
      for (long k = 0; k < distinct; k++) {
        if (!id(k).equals(r.readLine())) {
          return false;
        }
      }
      return r.readLine() == null;
    }
  }

  /** MurmurHash3's 64-bit finalizer: a bijection. */
  static long mix(long x) {
    x = (x ^ (x >>> 33)) * 0xff51afd7ed558ccdL;
    x = (x ^ (x >>> 33)) * 0xc4ceb9fe1a85ec53L;
    return x ^ (x >>> 33);
  }
}
