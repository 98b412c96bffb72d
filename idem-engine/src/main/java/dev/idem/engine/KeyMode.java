package dev.idem.engine;

/** What the exact tier stores for each key. */
public enum KeyMode {
  /**
   * The 128-bit fingerprint, 16 bytes per key. Two different keys are confused only if their
   * fingerprints collide: among n keys that happens with probability about n²/2^129 (1.5·10^-21 for
   * a billion keys).
   */
  FINGERPRINT,
  /** The key's bytes: exact to the byte, at the keys' own size. */
  FULL_KEY
}
