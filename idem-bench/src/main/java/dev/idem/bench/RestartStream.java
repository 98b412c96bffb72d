package dev.idem.bench;

/**
 * The message stream of the restart benchmark (issue #17): N distinct document ids, delivered with
 * redeliveries, the same for every contender and every run, and its own ground truth.
 *
 * <p>Messages come in blocks of ten: slots 2, 5 and 8 redeliver an earlier id (uniformly drawn
 * among the ids delivered before), the seven others deliver the next new id, in order. So the right
 * decision for message {@code m} is known without any set: process it iff it is a new-id slot, and
 * the right output is {@code id(0), id(1), …, id(N-1)}, one per line. Ids are {@code doc-} and 16
 * hex digits of a bijective mix of the index (all distinct, 20 bytes).
 */
final class RestartStream {

  /** Slot → 1 when the slot redelivers an earlier id. */
  private static final boolean[] REPEAT = {
    false, false, true, false, false, true, false, false, true, false
  };

  /** Slot → new ids delivered before it within its block. */
  private static final int[] NEW_BEFORE = {0, 1, 2, 2, 3, 4, 4, 5, 6, 6};

  /** Rank among a block's new ids → slot. */
  private static final int[] NEW_SLOT = {0, 1, 3, 4, 6, 7, 9};

  private static final char[] HEX = "0123456789abcdef".toCharArray();

  private final long distinct;
  private final long messages;

  RestartStream(long distinct) {
    if (distinct < 10) {
      throw new IllegalArgumentException("at least 10 ids, got " + distinct);
    }
    this.distinct = distinct;
    this.messages = messageOfNew(distinct - 1) + 1;
  }

  /** Distinct ids (N). */
  long distinct() {
    return distinct;
  }

  /** Messages in the whole stream (about N / 0.7). */
  long messages() {
    return messages;
  }

  /** The message that delivers new id {@code k}. */
  static long messageOfNew(long k) {
    return 10 * (k / 7) + NEW_SLOT[(int) (k % 7)];
  }

  /** True when message {@code m} delivers a new id (the right decision is: process it). */
  static boolean isNew(long m) {
    return !REPEAT[(int) (m % 10)];
  }

  /** New ids delivered before message {@code m}. */
  static long newBefore(long m) {
    return 7 * (m / 10) + NEW_BEFORE[(int) (m % 10)];
  }

  /** The index of the id message {@code m} carries. */
  static long idIndex(long m) {
    if (isNew(m)) {
      return newBefore(m);
    }
    return Math.floorMod(mix(m ^ 0x5851f42d4c957f2dL), newBefore(m));
  }

  /** The id of message {@code m}. */
  static String idOfMessage(long m) {
    return id(idIndex(m));
  }

  /** Id number {@code k}: "doc-" and 16 hex digits. */
  static String id(long k) {
    long h = mix(k);
    char[] c = new char[20];
    c[0] = 'd';
    c[1] = 'o';
    c[2] = 'c';
    c[3] = '-';
    for (int i = 19; i >= 4; i--) {
      c[i] = HEX[(int) (h & 15)];
      h >>>= 4;
    }
    return new String(c);
  }

  /** MurmurHash3's 64-bit finalizer: a bijection, so distinct indices give distinct ids. */
  static long mix(long x) {
    x = (x ^ (x >>> 33)) * 0xff51afd7ed558ccdL;
    x = (x ^ (x >>> 33)) * 0xc4ceb9fe1a85ec53L;
    return x ^ (x >>> 33);
  }
}
