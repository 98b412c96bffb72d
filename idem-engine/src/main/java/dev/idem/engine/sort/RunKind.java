package dev.idem.engine.sort;

/**
 * What a run holds and how it is sorted. Runs sorted by key carry what the merge compares (the
 * fingerprint, or the key itself); runs sorted by position, written only to restore input order,
 * carry the position and the record alone.
 */
enum RunKind {
  /** Sorted by 128-bit fingerprint, then position. */
  FINGERPRINT(1),
  /** Sorted by key bytes (unsigned), then position; the key is stored. */
  EXACT_KEY(2),
  /** Sorted by position. */
  ORDINAL(3);

  /** The code stored in a run file's header. */
  final int code;

  RunKind(int code) {
    this.code = code;
  }

  boolean hasFingerprint() {
    return this != ORDINAL;
  }

  boolean hasKey() {
    return this == EXACT_KEY;
  }

  static RunKind byCode(int code) {
    for (RunKind k : values()) {
      if (k.code == code) {
        return k;
      }
    }
    return null;
  }
}
