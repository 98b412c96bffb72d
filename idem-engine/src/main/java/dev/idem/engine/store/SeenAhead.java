package dev.idem.engine.store;

import dev.idem.core.filter.FingerprintSet;
import java.util.HashSet;
import java.util.Set;

/**
 * What {@code seen} answered for keys looked up together ahead of the records that ask for them
 * ({@link RocksDbExactTier#lookAhead}). An answer holds until the exact tier's pending keys next go
 * into {@code seen}: a key found stays found, since {@code seen} only grows, but one not found may
 * be written there by that commit, so the tier forgets every answer then.
 */
final class SeenAhead {

  /** What {@link #answer} returns for a key not looked up ahead. */
  static final int UNKNOWN = -1;

  private final boolean fullKeys;

  /** Made at the first answer: an exact tier that never looks ahead (a --state job's) has none. */
  private FingerprintSet present;

  private FingerprintSet absent;
  private Set<ByteKey> presentKeys;
  private Set<ByteKey> absentKeys;
  private boolean empty = true;

  /** About the most keys one look-ahead holds (a record batch's), so the sets need not grow. */
  private static final int RECORDS_AHEAD = 4096;

  SeenAhead(boolean fullKeys) {
    this.fullKeys = fullKeys;
  }

  /** 1 when {@code seen} held the key, 0 when it did not, {@link #UNKNOWN} when not looked up. */
  int answer(long hi, long lo, byte[] key) {
    if (empty) {
      return UNKNOWN;
    }
    if (fullKeys) {
      ByteKey k = new ByteKey(key, hi);
      return presentKeys.contains(k) ? 1 : absentKeys.contains(k) ? 0 : UNKNOWN;
    }
    return present.contains(hi, lo) ? 1 : absent.contains(hi, lo) ? 0 : UNKNOWN;
  }

  void record(long hi, long lo, byte[] key, boolean inSeen) {
    empty = false;
    if (fullKeys) {
      if (presentKeys == null) {
        presentKeys = new HashSet<>();
        absentKeys = new HashSet<>();
      }
      (inSeen ? presentKeys : absentKeys).add(new ByteKey(key, hi));
    } else {
      if (present == null) {
        present = FingerprintSet.withExpectedSize(RECORDS_AHEAD);
        absent = FingerprintSet.withExpectedSize(RECORDS_AHEAD);
      }
      (inSeen ? present : absent).addIfAbsent(hi, lo);
    }
  }

  void clear() {
    if (empty) {
      return;
    }
    empty = true;
    if (fullKeys) {
      presentKeys.clear();
      absentKeys.clear();
    } else {
      present.clear();
      absent.clear();
    }
  }
}
