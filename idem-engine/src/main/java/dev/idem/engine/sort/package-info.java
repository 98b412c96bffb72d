/**
 * {@code idem sort-dedup}: exact dedup in fixed memory by external sorting: sorted runs of (key,
 * position) written to a run directory, merged, then the survivors written in input or key order
 * (docs/SORT_DEDUP.md). Depends on {@code records} only; its internals are package-private.
 */
package dev.idem.engine.sort;
