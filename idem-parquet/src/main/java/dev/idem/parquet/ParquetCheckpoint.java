package dev.idem.parquet;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.idem.engine.input.InputFile;
import dev.idem.engine.output.OutputFile;
import dev.idem.engine.records.InputRead;
import dev.idem.engine.run.JobIdentity;
import dev.idem.engine.run.StateFile;
import java.io.IOException;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Where a Parquet job stands, committed with its keys as the deduplicator's token, in the job
 * kernel's state encoding ({@link StateFile}): the job's identity and the position after the last
 * closed part. Rows are read again from the start of row group {@code rowGroup} of input {@code
 * file}; parts from {@code parts} on are deleted.
 *
 * @param identity the job: its inputs when it began, key, output
 * @param read what the job read of each input it began (all of it: row groups are read in any order
 *     a file's footer gives), for a resume to check the inputs still hold it; empty in checkpoints
 *     written before idem kept it
 * @param file the input to go on with
 * @param rowGroup the row group of {@code file} to go on with
 * @param parts closed part files
 * @param rows rows read
 * @param kept rows written
 * @param duplicates rows dropped as duplicates
 * @param nullKeys rows skipped for a null key
 * @param done whether every input was read
 */
record ParquetCheckpoint(
    JobIdentity identity,
    List<InputRead> read,
    InputRead current,
    int file,
    int rowGroup,
    long parts,
    long rows,
    long kept,
    long duplicates,
    long nullKeys,
    boolean done) {

  static final String JOB = "parquet-dedup";

  /** Version 2: the first in the state encoding, with what was read of the inputs. */
  static final int VERSION = 2;

  byte[] encode() {
    return StateFile.encode(JOB, VERSION, this);
  }

  /**
   * The checkpoint in {@code token}; {@code state} names it in errors.
   *
   * @throws IOException when the token is damaged or not a Parquet job's
   */
  static ParquetCheckpoint decode(Path state, byte[] token) throws IOException {
    StateFile.Contents c = StateFile.decode(state, token, JOB, VERSION);
    if (c.version() != StateFile.LEGACY_VERSION) {
      return c.as(ParquetCheckpoint.class);
    }
    // written by a plain Jackson mapper: names as in Java
    Legacy l = new ObjectMapper().readValue(c.body(), Legacy.class);
    return new ParquetCheckpoint(
        identity(l.inputs(), l.key(), l.keyAsText(), l.normalize(), 0, l.output(), l.dropped()),
        List.of(),
        null,
        l.file(),
        l.rowGroup(),
        l.parts(),
        l.rows(),
        l.kept(),
        l.duplicates(),
        l.nullKeys(),
        l.done());
  }

  /** What decides a Parquet job's output: a resume must ask the same. */
  static JobIdentity identity(ParquetDedup job, List<InputFile> inputs) {
    return identity(
        inputs,
        job.key,
        job.keyAsText,
        job.normalizer.spec(),
        job.seed,
        OutputFile.absolute(job.output),
        OutputFile.absolute(job.dropped));
  }

  private static JobIdentity identity(
      List<InputFile> inputs,
      List<String> key,
      boolean keyAsText,
      String normalize,
      long seed,
      String output,
      String dropped) {
    Map<String, String> m = new LinkedHashMap<>();
    m.put("key", String.join(",", key) + (keyAsText ? " (as text)" : ""));
    m.put("normalize", normalize);
    m.put("seed", Long.toString(seed));
    m.put("output", output);
    m.put("dropped", dropped);
    return new JobIdentity(JOB, inputs, m);
  }

  /** A checkpoint as idem wrote it before the state encoding (bare JSON, version 1). */
  record Legacy(
      int version,
      List<InputFile> inputs,
      List<String> key,
      boolean keyAsText,
      String normalize,
      String output,
      String dropped,
      int file,
      int rowGroup,
      long parts,
      long rows,
      long kept,
      long duplicates,
      long nullKeys,
      boolean done) {}
}
