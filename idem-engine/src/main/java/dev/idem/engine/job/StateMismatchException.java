package dev.idem.engine.job;

import dev.idem.engine.JobException;
import dev.idem.engine.state.Manifest;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Collectors;

/**
 * A job asked to resume a state that belongs to another job: the command differs in settings that
 * decide which records are kept. Carries each difference, so that a caller can name them in its own
 * terms (the CLI names its options).
 */
public final class StateMismatchException extends JobException {

  private static final long serialVersionUID = 1L;

  private final transient Path state;
  private final transient List<Manifest.Difference> differences;

  StateMismatchException(Path state, List<Manifest.Difference> differences) {
    super(
        "this job differs from the one in "
            + state
            + ":\n  "
            + differences.stream()
                .map(Manifest.Difference::toString)
                .collect(Collectors.joining("\n  "))
            + "\nresume it with the settings it started with, or use a new state directory");
    this.state = state;
    this.differences = List.copyOf(differences);
  }

  /** The state directory. */
  public Path state() {
    return state;
  }

  /** Every setting that differs, in the state's order. */
  public List<Manifest.Difference> differences() {
    return differences;
  }
}
