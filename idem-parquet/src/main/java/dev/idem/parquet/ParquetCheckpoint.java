package dev.idem.parquet;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.idem.engine.records.InputFile;
import java.io.IOException;
import java.util.List;

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
}
