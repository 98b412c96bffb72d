package dev.idem.engine.run;

import java.util.Map;

/**
 * Where one phase of a job stands.
 *
 * @param phase the phase, as the job names it: {@code "dedup"}, {@code "restore"}, {@code "read"},
 *     {@code "merge 1 by key"}, ...
 * @param unit what {@code done} and {@code total} count
 * @param done how many are done
 * @param total how many there are in all ({@code 0} when not known)
 * @param counts what else the phase counts so far, by name ({@code "records"}, {@code "kept"},
 *     {@code "runs"}), in the order to show them
 */
public record PhaseProgress(
    String phase, Unit unit, long done, long total, Map<String, Long> counts) {

  /** What a phase counts. */
  public enum Unit {
    /** Input bytes as stored (compressed, for a compressed input). */
    BYTES,
    /** Checkpoints replayed. */
    CHECKPOINTS,
    /** Partition files judged. */
    PARTITIONS,
    /** Records of sorted runs merged. */
    ENTRIES,
    /** Documents. */
    DOCUMENTS
  }

  public PhaseProgress {
    counts = counts == null ? Map.of() : counts;
  }

  /** A phase that counts nothing else. */
  public static PhaseProgress of(String phase, Unit unit, long done, long total) {
    return new PhaseProgress(phase, unit, done, total, Map.of());
  }

  /** {@code name}'s count, or {@code -1} when the phase does not count it. */
  public long count(String name) {
    return counts.getOrDefault(name, -1L);
  }
}
