package dev.idem.engine.store;

import dev.idem.core.filter.MembershipFilter;
import dev.idem.core.filter.StripedFingerprintSet;
import java.util.function.LongConsumer;

/**
 * Puts journaled keys back into a filter and an in-memory exact set on reopen, in one pass over the
 * journal, reading ahead the slots of a few keys at a time so their cache misses overlap.
 */
public final class JournalReplay {

  private JournalReplay() {}

  /**
   * Puts the keys journaled at checkpoints {@code from} to {@code to} into {@code filter} and
   * {@code set} (either may be null). Returns the number of keys read.
   */
  public static long replay(
      StateStore store, long from, long to, MembershipFilter filter, MemoryExactTier set) {
    return replay(store, from, to, filter, set, entries -> {});
  }

  /**
   * {@link #replay(StateStore, long, long, MembershipFilter, MemoryExactTier)}, telling {@code
   * entriesDone} how many journal entries (one per checkpoint that kept keys) it has replayed after
   * each.
   */
  public static long replay(
      StateStore store,
      long from,
      long to,
      MembershipFilter filter,
      MemoryExactTier set,
      LongConsumer entriesDone) {
    long[] keys = new long[1];
    long[] entries = new long[1];
    // a set used in place from its snapshots: the journal after the newest one holds keys that
    // were new when kept, so absent from the mapped levels; they go straight to the overlay
    StripedFingerprintSet layered =
        filter instanceof StripedFingerprintSet s && s.layered() ? s : null;
    store.forEachJournaledBatch(
        from,
        to,
        (pairs, count) -> {
          for (int c = 0; c < count; c += MembershipFilter.PREFETCH_CHUNK) {
            int end = Math.min(count, c + MembershipFilter.PREFETCH_CHUNK);
            if (filter != null && layered == null) {
              filter.prefetch(pairs, c, end);
            }
            if (set != null) {
              set.prefetch(pairs, c, end);
            }
            for (int i = c; i < end; i++) {
              if (layered != null) {
                layered.restoreKept(pairs[2 * i], pairs[2 * i + 1]);
              } else if (filter != null) {
                filter.put(pairs[2 * i], pairs[2 * i + 1]);
              }
              if (set != null) {
                set.restore(pairs[2 * i], pairs[2 * i + 1], null);
              }
            }
          }
          keys[0] += count;
          entriesDone.accept(++entries[0]);
        });
    return keys[0];
  }
}
