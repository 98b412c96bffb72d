package dev.idem.parquet;

import dev.idem.engine.run.JobReport;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * How a Parquet dedup job went.
 *
 * @param rows rows read, in every run of the job
 * @param kept rows written: the first of each key
 * @param duplicates rows dropped as duplicates
 * @param nullKeys rows skipped because a key column was null ({@code onNullKey(SKIP)})
 * @param files input files
 * @param parts part files written (1 for a single output file)
 * @param resumed whether this run went on from a checkpoint
 * @param alreadyComplete whether the state said the job was done, so nothing was read
 * @param elapsedMillis this run's time
 * @param restoreMillis this run's time from its start to its first row read: for a resumed run, the
 *     restore (reading the inputs' footers, opening the state, cutting the output back to the
 *     checkpoint) and reading the first row group's key columns; {@code elapsedMillis} when no row
 *     was read (a job already complete, or no rows left)
 */
public record ParquetDedupResult(
    long rows,
    long kept,
    long duplicates,
    long nullKeys,
    int files,
    long parts,
    boolean resumed,
    boolean alreadyComplete,
    long elapsedMillis,
    long restoreMillis)
    implements JobReport {

  @Override
  public Map<String, Object> report() {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("format", "parquet");
    m.put("records", rows);
    m.put("kept", kept);
    m.put("duplicates", duplicates);
    m.put("bad_records", nullKeys);
    m.put("files", files);
    m.put("parts", parts);
    m.put("already_complete", alreadyComplete);
    m.put("resumed", resumed);
    m.put("elapsed_millis", elapsedMillis);
    m.put("restore_millis", restoreMillis);
    return m;
  }
}
