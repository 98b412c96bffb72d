package dev.idem.engine.records;

/**
 * How a resumed job checks that its inputs still hold what it read of them (see {@link
 * InputCheck}); either way, any difference refuses the resume.
 */
public enum VerifyInputs {
  /**
   * Sizes, the first 64 KiB and sampled blocks of what was read; an input modified since (a new
   * modification time or file key) and the gzip input being read are checked in full.
   */
  SAMPLE,
  /** Everything read so far, read again and compared with its CRC32C. */
  FULL
}
