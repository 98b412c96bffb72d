/**
 * Near-duplicate documents with MinHash LSH ({@code idem near-dup}, docs/NEAR_DUP.md): {@link
 * dev.idem.engine.neardup.NearDupJob} runs a job from a {@link
 * dev.idem.engine.neardup.NearDupSpec}; the shingling, signatures, banding and clustering are
 * package-private, one concept a class.
 */
package dev.idem.engine.neardup;
