package dev.idem.core.shared;

import java.io.IOException;

/**
 * An exact seen-set shared by many workers (Redis, for one): an atomic check-and-mark per key, so
 * that of all workers that meet a key, exactly one is told it is new.
 *
 * <p>Each mark carries a tag, the marking worker's identity and the record's position. A worker
 * that marked a key, then crashed before its output was committed, meets its own tag when it reads
 * the record again after the resume, and keeps the record: a key is never marked without its record
 * in some committed output, and marking again with the same tag changes nothing, so retrying a call
 * after a lost connection is safe.
 *
 * <p>All of that holds only while the set remembers: a set that forgets marks (a server restarted
 * without persistence) would call keys new that workers emitted before. An implementation must
 * notice that and throw {@link SharedSetLostException} instead of answering.
 */
public interface SharedSeenSet extends AutoCloseable {

  /**
   * Marks keys {@code 0 .. count-1} (fingerprint {@code fps[2i], fps[2i+1]}) with {@code tags[i]}
   * unless they are marked already. Sets {@code previous[i]} to {@code null} when this call marked
   * the key, else to the tag it was marked with. Keys are marked in order, so a key twice in one
   * call is new at most once.
   *
   * @throws SharedSetLostException when the set forgot marks made before this call: then no answer
   *     of this call may be acted on
   * @throws IOException when the shared store cannot be reached (after retries)
   */
  void markAll(long[] fps, int count, byte[][] tags, byte[][] previous) throws IOException;

  /**
   * True when marks expire (a "seen in the last T" set): then no local tier may remember a key as
   * seen, since the shared answer changes with time.
   */
  default boolean marksExpire() {
    return false;
  }

  /** Where the set lives, for reports: {@code redis://host:port/db}. */
  String describe();

  @Override
  void close();

  /** How a worker comes to the set: what the set must still hold of its earlier runs. */
  enum Start {
    /** A job with state, before its first checkpoint: no output relies on its marks yet. */
    NEW,
    /** A job resumed from a checkpoint: its committed output relies on the marks it made. */
    RESUMED,
    /** A job without state: it cannot resume, so nothing of it need outlive this run. */
    WITHOUT_STATE
  }

  /** What opening a set has to tell the job's user. */
  interface Listener {
    /** Something that puts the job's correctness at risk, e.g. a store that cannot persist. */
    default void warning(String message) {}

    /** Something the user should know that is not a problem. */
    default void note(String message) {}
  }

  /** Opens the shared set; the job opens it when it starts and closes it at the end. */
  interface Opener {
    /**
     * Opens the set for the worker named {@code worker} (stable for the life of its state).
     *
     * @throws SharedSetLostException when {@code start} is {@link Start#RESUMED} and the set no
     *     longer holds what the worker marked before
     */
    SharedSeenSet open(String worker, Start start, Listener listener) throws IOException;

    /** Where it is, for the job's manifest and reports. */
    String describe();
  }
}
