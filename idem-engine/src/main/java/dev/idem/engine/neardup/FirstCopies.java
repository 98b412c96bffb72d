package dev.idem.engine.neardup;

import dev.idem.core.Fingerprint;
import java.util.HashMap;
import java.util.Map;

/**
 * The exact-duplicate check of the first read: for each 128-bit content fingerprint, the position
 * of the first document with it. In a hash map while the {@link JudgingMemory} budget allows, in
 * the {@link SpillTables} after; a fingerprint is looked up in both.
 */
final class FirstCopies {

  private final JudgingMemory memory;
  private final Map<Fingerprint, Integer> inMemory = new HashMap<>();

  FirstCopies(JudgingMemory memory) {
    this.memory = memory;
  }

  /**
   * The position of the first document with this fingerprint, or -1 after recording {@code doc} as
   * that first document.
   *
   * @param hi the fingerprint's first 64 bits
   * @param lo its last 64 bits
   */
  int firstCopy(long hi, long lo, int doc) {
    Fingerprint f = new Fingerprint(hi, lo);
    Integer first = inMemory.get(f);
    if (first != null) {
      return first;
    }
    if (memory.hold(NearDupPlan.FINGERPRINT_ENTRY)) {
      inMemory.put(f, doc);
      return -1;
    }
    return memory.tables().firstCopy(hi, lo, doc);
  }
}
