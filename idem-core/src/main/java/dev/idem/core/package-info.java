/**
 * Keys to fingerprints: {@code Fingerprinter} (XXH3-128 over normalized key bytes), {@code
 * Fingerprint}, {@code KeyNormalizer}. Depends on hash4j only; every other idem package builds on
 * it.
 */
package dev.idem.core;
