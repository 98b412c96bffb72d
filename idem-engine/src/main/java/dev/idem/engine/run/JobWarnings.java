package dev.idem.engine.run;

import java.util.ArrayList;
import java.util.List;

/**
 * A run's warnings: told to its listener as they come, and kept for its result (the summary and
 * {@code --stats-json} count them). Every job keeps its warnings here, including those the kernel
 * tells (a resume's input check) through {@link #listener}.
 */
public final class JobWarnings {
  private final JobListener listener;
  private final List<String> all = new ArrayList<>();

  public JobWarnings(JobListener listener) {
    this.listener = listener;
  }

  /** Tells the listener, and keeps the warning for the result. */
  public void add(String warning) {
    all.add(warning);
    listener.warning(warning);
  }

  public void addAll(List<String> warnings) {
    warnings.forEach(this::add);
  }

  /** The job's listener with its warnings going through here (its notes pass straight on). */
  public JobListener listener() {
    return new JobListener() {
      @Override
      public void warning(String message) {
        add(message);
      }

      @Override
      public void note(String message) {
        listener.note(message);
      }
    };
  }

  /** The warnings so far, in order. */
  public List<String> list() {
    return List.copyOf(all);
  }
}
