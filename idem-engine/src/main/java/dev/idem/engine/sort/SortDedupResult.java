package dev.idem.engine.sort;

import dev.idem.engine.run.JobReport;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * How a sort-dedup job went.
 *
 * @param records records read (bad ones included, blank lines not)
 * @param kept records written
 * @param duplicates records dropped as repeats of a kept key
 * @param badRecords records without a usable key (skipped or quarantined)
 * @param blankLines blank lines of JSON Lines inputs, which are not records
 * @param runs sorted runs written while reading (0: the input fit in memory)
 * @param mergePasses merges that read (part of) the data once: by key, then by position
 * @param keyMergePasses of those, the merges by key
 * @param fanIn runs merged at once
 * @param memoryBytes the memory budget
 * @param tempBytesWritten bytes of runs written to {@code --tmp} over the job
 * @param tempPeakBytes the most bytes of runs in {@code --tmp} at once
 * @param outputBytes bytes written to the output
 * @param readMillis time spent reading and writing the first runs
 * @param elapsedMillis time of the whole job
 * @param warnings things the user should know (leftovers removed, records too long to quarantine)
 */
public record SortDedupResult(
    long records,
    long kept,
    long duplicates,
    long badRecords,
    long blankLines,
    int runs,
    int mergePasses,
    int keyMergePasses,
    int fanIn,
    long memoryBytes,
    long tempBytesWritten,
    long tempPeakBytes,
    boolean runsCompressed,
    long outputBytes,
    long readMillis,
    long elapsedMillis,
    List<String> warnings)
    implements JobReport {

  @Override
  public Map<String, Object> report() {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("records", records);
    m.put("kept", kept);
    m.put("duplicates", duplicates);
    m.put("bad_records", badRecords);
    m.put("blank_lines", blankLines);
    m.put("runs", runs);
    m.put("merge_passes", mergePasses);
    m.put("merge_passes_by_key", keyMergePasses);
    m.put("fan_in", fanIn);
    m.put("memory_bytes", memoryBytes);
    m.put("temp_bytes_written", tempBytesWritten);
    m.put("temp_peak_bytes", tempPeakBytes);
    m.put("runs_compressed", runsCompressed);
    m.put("output_bytes", outputBytes);
    m.put("read_millis", readMillis);
    m.put("elapsed_millis", elapsedMillis);
    m.put("warnings", warnings);
    return m;
  }
}
