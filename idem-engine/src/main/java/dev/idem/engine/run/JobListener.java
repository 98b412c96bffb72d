package dev.idem.engine.run;

/**
 * Hears about a running job, on the job's thread: where each of its phases is, warnings and notes.
 * Every job reports through this one shape, so that one progress display and one metrics endpoint
 * serve them all.
 */
public interface JobListener {

  /** A listener that ignores everything. */
  JobListener NONE = new JobListener() {};

  /**
   * Where a phase of the job is: about twice a second while it runs, and once with {@code done ==
   * total} when it ends. A resumed job's first call for a phase says where it starts (work an
   * earlier run did counts as done), so a speed or an ETA counts from there.
   */
  default void progress(PhaseProgress progress) {}

  /** Something went wrong that the job could go past; counted in its report. */
  default void warning(String message) {}

  /** Something the user should know that is not a problem (e.g. a size chosen for them). */
  default void note(String message) {}
}
