package dev.idem.engine.job;

import dev.idem.engine.run.JobListener;
import java.util.ArrayList;
import java.util.List;

/** A run's warnings: told to its listener as they come, and kept for its result. */
final class JobWarnings {
  private final JobListener listener;
  private final List<String> all = new ArrayList<>();

  JobWarnings(JobListener listener) {
    this.listener = listener;
  }

  void add(String warning) {
    all.add(warning);
    listener.warning(warning);
  }

  void addAll(List<String> warnings) {
    warnings.forEach(this::add);
  }

  List<String> list() {
    return List.copyOf(all);
  }
}
