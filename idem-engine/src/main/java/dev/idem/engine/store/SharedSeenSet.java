package dev.idem.engine.store;

import java.io.IOException;

/**
 * An exact seen-set shared by many workers (Redis, for one): an atomic check-and-mark per key, so
 * that of all workers that meet a key, exactly one is told it is new.
 *
 * <p>Each mark carries a tag, the marking worker's identity and the record's position. A worker
 * that marked a key, then crashed before its output was committed, meets its own tag when it
 * reads the record again after the resume, and keeps the record: a key is never marked without
 * its record in some committed output, and marking again with the same tag changes nothing, so
 * retrying a call after a lost connection is safe.
 */
public interface SharedSeenSet extends AutoCloseable {

  /**
   * Marks keys {@code 0 .. count-1} (fingerprint {@code fps[2i], fps[2i+1]}) with
   * {@code tags[i]} unless they are marked already. Sets {@code previous[i]} to {@code null}
   * when this call marked the key, else to the tag it was marked with. Keys are marked in order,
   * so a key twice in one call is new at most once.
   *
   * @throws IOException when the shared store cannot be reached (after retries)
   */
  void markAll(long[] fps, int count, byte[][] tags, byte[][] previous) throws IOException;

  /**
   * True when marks expire (a "seen in the last T" set): then no local tier may remember a key
   * as seen, since the shared answer changes with time.
   */
  default boolean marksExpire() {
    return false;
  }

  /** Where the set lives, for reports: {@code redis://host:port/db}. */
  String describe();

  @Override
  void close();

  /** Opens the shared set; the job opens it when it starts and closes it at the end. */
  interface Opener {
    SharedSeenSet open() throws IOException;

    /** Where it is, for the job's manifest and reports. */
    String describe();
  }
}
