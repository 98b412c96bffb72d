package dev.idem.engine.sort;

import java.io.IOException;

/**
 * Where sorted entries go: a run file, the job's output, or the buffer that sorts survivors back
 * into input order. An entry is flat arguments, not an object, so that streaming millions of them
 * allocates nothing.
 */
interface EntrySink {

  /**
   * Takes one entry; the arrays are only read during the call.
   *
   * @param hi high half of the fingerprint (with exact keys: the key's first 8 bytes, big-endian)
   * @param lo low half (exact keys: the key's next 8 bytes)
   * @param ordinal the record's position among the input's records (0-based)
   * @param key the key's bytes with exact keys, else ignored ({@code keyLength} 0)
   * @param record the record as it will be written, line terminator included
   */
  void write(
      long hi,
      long lo,
      long ordinal,
      byte[] key,
      int keyOffset,
      int keyLength,
      byte[] record,
      int recordOffset,
      int recordLength)
      throws IOException;
}
