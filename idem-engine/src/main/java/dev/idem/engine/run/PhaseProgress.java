package dev.idem.engine.run;

/**
 * Where one phase of a job stands.
 *
 * @param phase the phase, as the job names it: {@code "dedup"}, {@code "read"}, {@code "merge"},
 *     {@code "restore"}, ...
 * @param unit what {@code done} and {@code total} count
 * @param done how many are done
 * @param total how many there are in all ({@code 0} when not known)
 * @param records records read so far, or {@code -1} when the phase does not read records
 * @param kept records kept so far, or {@code -1}
 */
public record PhaseProgress(
    String phase, Unit unit, long done, long total, long records, long kept) {

  /** What a phase counts. */
  public enum Unit {
    /** Input bytes as stored (compressed, for a compressed input). */
    BYTES,
    /** Checkpoints replayed. */
    CHECKPOINTS,
    /** Partition files judged. */
    PARTITIONS,
    /** Entries of sorted runs merged. */
    ENTRIES,
    /** Documents. */
    DOCUMENTS
  }

  /** A phase that reads no records. */
  public static PhaseProgress of(String phase, Unit unit, long done, long total) {
    return new PhaseProgress(phase, unit, done, total, -1, -1);
  }
}
