package dev.idem.engine;

/** How sure a "duplicate" answer must be. */
public enum DedupMode {
  /**
   * Every "maybe" of the filter is confirmed in the exact tier, so no new key is ever dropped. The
   * default.
   */
  EXACT,
  /**
   * The filter alone decides: a new key is dropped with probability at most the filter's rate, and
   * no exact tier is kept (the trade-off of docs/DESIGN.md, invariant 3, for those who accept it).
   */
  APPROXIMATE
}
