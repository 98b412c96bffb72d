package dev.idem.engine.run;

import dev.idem.engine.JobException;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Collectors;

/**
 * A job asked to resume a state that belongs to another job: the command differs in its inputs or
 * in settings that decide its output ({@link JobIdentity#differencesFrom}). Carries each
 * difference, so that a caller can name them in its own terms (the CLI names its options).
 */
public final class StateMismatchException extends JobException {

  private static final long serialVersionUID = 1L;

  private final transient Path state;
  private final String job;
  private final transient List<JobIdentity.Difference> differences;

  /**
   * @param job the kind of job whose state it is ({@link JobIdentity#job()})
   */
  public StateMismatchException(Path state, String job, List<JobIdentity.Difference> differences) {
    super(
        "this differs from the state in "
            + state
            + ":\n  "
            + differences.stream()
                .map(JobIdentity.Difference::toString)
                .collect(Collectors.joining("\n  "))
            + "\nopen it with the inputs and settings it was made with, or use a new state");
    this.state = state;
    this.job = job;
    this.differences = List.copyOf(differences);
  }

  /** The state directory. */
  public Path state() {
    return state;
  }

  /** The kind of job whose state it is: {@code "dedup"}, {@code "split"}, ... */
  public String job() {
    return job;
  }

  /** Every input and setting that differs, in the state's order. */
  public List<JobIdentity.Difference> differences() {
    return differences;
  }
}
