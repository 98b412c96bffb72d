package dev.idem.parquet;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.idem.engine.records.InputFile;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * Where a Parquet job stands, committed with its keys as the deduplicator's token: the job (inputs,
 * key, output) and the position after the last closed part. Rows are read again from the start of
 * row group {@code rowGroup} of input {@code file}; parts from {@code parts} on are deleted.
 *
 * @param inputs the inputs' identities when the job began
 * @param key the key columns as the user named them
 * @param keyAsText whether keys are compared as text
 * @param normalize the key normaliser's spec
 * @param output the output directory, absolute
 * @param dropped the directory of dropped rows, absolute, or null
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
    boolean done) {

  static final int VERSION = 1;
  private static final ObjectMapper JSON = new ObjectMapper();

  byte[] encode() {
    try {
      return JSON.writeValueAsBytes(this);
    } catch (IOException e) {
      throw new IllegalStateException("a checkpoint always encodes", e);
    }
  }

  static ParquetCheckpoint decode(byte[] token) throws IOException {
    ParquetCheckpoint c = JSON.readValue(token, ParquetCheckpoint.class);
    if (c.version != VERSION) {
      throw new IOException(
          "a Parquet job checkpoint of version " + c.version + "; this idem reads " + VERSION);
    }
    return c;
  }

  /** What differs between the job of this checkpoint and {@code job} over {@code files}. */
  List<String> differencesFrom(ParquetDedup job, List<InputFile> files) {
    List<String> differences = new ArrayList<>();
    if (!key().equals(job.key) || keyAsText() != job.keyAsText) {
      differences.add("the key: the job's is " + key() + (keyAsText() ? " as text" : ""));
    }
    if (!normalize().equals(job.normalizer.spec())) {
      differences.add("--normalize: the job's is " + normalize());
    }
    if (!output().equals(job.output.toAbsolutePath().toString())) {
      differences.add("the output: the job's is " + output());
    }
    if (!Objects.equals(dropped(), absolute(job.dropped))) {
      differences.add("--dropped: the job's is " + (dropped() == null ? "none" : dropped()));
    }
    if (inputs().size() != files.size()) {
      differences.add("the inputs: the job had " + inputs().size() + " files, now " + files.size());
    } else {
      for (int i = 0; i < files.size(); i++) {
        InputFile was = inputs().get(i);
        InputFile now = files.get(i);
        String change =
            !was.path().equals(now.path())
                ? "input " + (i + 1) + " was " + was.path() + ", now " + now.path()
                : was.differenceFrom(now);
        if (change != null) {
          differences.add(change);
        }
      }
    }
    return differences;
  }

  /** A path as checkpoints keep it: absolute, or null. */
  static String absolute(Path p) {
    return p == null ? null : p.toAbsolutePath().toString();
  }
}
