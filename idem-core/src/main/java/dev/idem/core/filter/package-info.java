/**
 * Membership filters (Bloom, blocked, partitioned, scalable, counting, cuckoo) and the exact
 * fingerprint set, created through {@code Filters} and saved in the one snapshot format of {@code
 * FilterSnapshot} (docs/FORMAT.md). Depends on {@code dev.idem.core} only.
 */
package dev.idem.core.filter;
