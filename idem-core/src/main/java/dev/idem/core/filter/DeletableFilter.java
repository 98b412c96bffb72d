package dev.idem.core.filter;

import dev.idem.core.Fingerprint;

/**
 * A filter that can forget keys. It keeps a multiset: {@link #add} stores one more copy of a key,
 * {@link #remove} takes one copy away.
 *
 * <p>{@link #put} keeps the set semantics of {@link MembershipFilter}: it stores the key only when
 * the filter answers "certainly new". That is right for deduplication but not together with
 * removal: a key whose put found a false positive was never stored, so removing the key that caused
 * the false positive could make it read as new. Use {@code add} for keys you may remove, and remove
 * only keys you added (removing a key never added can erase another key's copy).
 */
public interface DeletableFilter extends MembershipFilter {

  /**
   * Stores one more copy of the key. Returns true when the key was certainly absent before.
   *
   * @throws FilterFullException when there is no room (nothing stored before is lost)
   */
  boolean add(long hi, long lo);

  /**
   * Removes one copy of the key. Returns false, changing nothing, when the key is certainly not in
   * the filter.
   */
  boolean remove(long hi, long lo);

  /** See {@link #add(long, long)}. */
  default boolean add(Fingerprint fingerprint) {
    return add(fingerprint.hi(), fingerprint.lo());
  }

  /** See {@link #remove(long, long)}. */
  default boolean remove(Fingerprint fingerprint) {
    return remove(fingerprint.hi(), fingerprint.lo());
  }
}
