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
  private final transient List<JobIdentity.Difference> differences;

  public StateMismatchException(Path state, List<JobIdentity.Difference> differences) {
    super(
        "this differs from the state in "
            + state
            + ":\n  "
            + differences.stream()
                .map(JobIdentity.Difference::toString)
                .collect(Collectors.joining("\n  "))
            + "\nopen it with the inputs and settings it was made with, or use a new state");
    this.state = state;
    this.differences = List.copyOf(differences);
  }

  /** The state directory. */
  public Path state() {
    return state;
  }

  /** Every input and setting that differs, in the state's order. */
  public List<JobIdentity.Difference> differences() {
    return differences;
  }
}
