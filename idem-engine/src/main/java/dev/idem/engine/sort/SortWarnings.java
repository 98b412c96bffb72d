package dev.idem.engine.sort;

import dev.idem.engine.run.JobListener;
import java.util.ArrayList;
import java.util.List;

/** A sort-dedup's warnings: told to its listener as they come, and kept for its result. */
final class SortWarnings {
  private final JobListener listener;
  private final List<String> all = new ArrayList<>();

  SortWarnings(JobListener listener) {
    this.listener = listener;
  }

  void add(String warning) {
    all.add(warning);
    listener.warning(warning);
  }

  /**
   * The job's listener with its warnings going through here, so that those told by the kernel (the
   * resume's input check) are counted in the result too.
   */
  JobListener listener() {
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

  List<String> list() {
    return List.copyOf(all);
  }
}
