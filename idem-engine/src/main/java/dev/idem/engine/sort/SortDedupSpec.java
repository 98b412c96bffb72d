package dev.idem.engine.sort;

import dev.idem.core.KeyNormalizer;
import dev.idem.engine.records.BadRecordPolicy;
import dev.idem.engine.records.KeySpec;
import dev.idem.engine.records.RecordFormat;
import dev.idem.engine.records.VerifyInputs;
import java.nio.file.Path;
import java.util.List;

/**
 * Everything a sort-dedup job is told.
 *
 * @param inputs files, directories, globs or {@code -}, as given
 * @param format record layout
 * @param key what identifies a record
 * @param header whether CSV/TSV inputs start with a header line
 * @param normalizer applied to keys before hashing (and before comparing, with exact keys)
 * @param seed hash seed
 * @param exactKey compare whole key bytes instead of 128-bit fingerprints
 * @param memoryBytes the job's working memory: read buffers, the sort buffer, merge buffers
 * @param tmp where the private directory of sorted runs goes, or {@code null} for {@code
 *     java.io.tmpdir}
 * @param keep which occurrence of a key survives
 * @param order the order of the output
 * @param output the output file, or {@code null} for standard output
 * @param onBadRecord what to do with records without a usable key
 * @param maxRecordBytes longer records are bad records
 * @param compressRuns LZ4-compress the records in the runs (less disk, more CPU); {@code null}:
 *     only when --tmp lacks the room for uncompressed runs (with a quarter to spare)
 * @param state a state directory that makes the job resumable (its runs go there, not to {@code
 *     tmp}), or {@code null}
 * @param verifyInputs how a resume checks that the inputs still hold what the job read of them
 */
public record SortDedupSpec(
    List<String> inputs,
    RecordFormat format,
    KeySpec key,
    boolean header,
    KeyNormalizer normalizer,
    long seed,
    boolean exactKey,
    long memoryBytes,
    Path tmp,
    Keep keep,
    Order order,
    Path output,
    BadRecordPolicy onBadRecord,
    int maxRecordBytes,
    Boolean compressRuns,
    Path state,
    VerifyInputs verifyInputs) {

  /** The least working memory a job accepts: below it, the read buffers alone take most. */
  public static final long MIN_MEMORY = 1 << 20;

  /** Which occurrence of a key is written. */
  public enum Keep {
    FIRST,
    LAST
  }

  /** The order of the output. */
  public enum Order {
    /** The survivors in the order they were read. */
    INPUT,
    /**
     * Grouped by key, in 128-bit fingerprint order (byte order of the keys with exact keys): one
     * external pass fewer than {@link #INPUT}.
     */
    KEY
  }

  /** A spec whose runs are LZ4-compressed. */
  public SortDedupSpec(
      List<String> inputs,
      RecordFormat format,
      KeySpec key,
      boolean header,
      KeyNormalizer normalizer,
      long seed,
      boolean exactKey,
      long memoryBytes,
      Path tmp,
      Keep keep,
      Order order,
      Path output,
      BadRecordPolicy onBadRecord,
      int maxRecordBytes) {
    this(
        inputs,
        format,
        key,
        header,
        normalizer,
        seed,
        exactKey,
        memoryBytes,
        tmp,
        keep,
        order,
        output,
        onBadRecord,
        maxRecordBytes,
        true,
        null,
        VerifyInputs.SAMPLE);
  }

  public SortDedupSpec {
    inputs = List.copyOf(inputs);
    verifyInputs = verifyInputs == null ? VerifyInputs.SAMPLE : verifyInputs;
    if (inputs.isEmpty()) {
      throw new IllegalArgumentException("at least one input is needed ('-' for standard input)");
    }
    if (state != null && output == null) {
      throw new IllegalArgumentException(
          "--state needs -o FILE: a resumed job writes its output again, which standard output "
              + "cannot take back");
    }
    if (memoryBytes < MIN_MEMORY) {
      throw new IllegalArgumentException(
          "--memory must be at least 1m (the read buffers alone "
              + "take a few hundred KiB), got "
              + memoryBytes
              + " bytes");
    }
  }
}
