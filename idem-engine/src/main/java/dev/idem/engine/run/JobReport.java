package dev.idem.engine.run;

import java.util.Map;

/**
 * What a job did, as data: its counts, choices and timings by name ({@code "records"}, {@code
 * "kept"}, {@code "elapsed_millis"}, ...), in a stable order: what {@code --stats-json} writes for
 * every command, and what a library caller can log. Every job's result is one.
 */
public interface JobReport {

  /** The report, names in snake_case, values numbers, booleans, strings or lists of strings. */
  Map<String, Object> report();
}
