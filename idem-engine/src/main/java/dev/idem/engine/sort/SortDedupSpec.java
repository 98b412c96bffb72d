package dev.idem.engine.sort;

import dev.idem.core.KeyNormalizer;
import dev.idem.engine.input.LineReader;
import dev.idem.engine.records.BadRecordPolicy;
import dev.idem.engine.records.KeySpec;
import dev.idem.engine.records.RecordFormat;
import dev.idem.engine.records.VerifyInputs;
import java.nio.file.Path;
import java.util.List;
import java.util.Objects;

/**
 * Everything a sort-dedup job is told. Made with {@link #builder}, which starts every option at the
 * command's default.
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

  /** The working memory when none is given: {@code --memory}'s default, 64 MiB. */
  private static final long DEFAULT_MEMORY = 64 << 20;

  /** The longest record when none is given: {@code --max-record-bytes}'s default, 16 MiB. */
  private static final int DEFAULT_MAX_RECORD_BYTES = 16 << 20;

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

  public SortDedupSpec {
    inputs = requireInputs(inputs);
    verifyInputs = verifyInputs == null ? VerifyInputs.SAMPLE : verifyInputs;
    if (state != null && output == null) {
      throw new IllegalArgumentException(
          "--state needs -o FILE: a resumed job writes its output again, which standard output "
              + "cannot take back");
    }
    requireMemory(memoryBytes);
  }

  private static List<String> requireInputs(List<String> inputs) {
    List<String> copy = List.copyOf(inputs);
    if (copy.isEmpty()) {
      throw new IllegalArgumentException("at least one input is needed ('-' for standard input)");
    }
    return copy;
  }

  private static long requireMemory(long memoryBytes) {
    if (memoryBytes < MIN_MEMORY) {
      throw new IllegalArgumentException(
          "--memory must be at least 1m (the read buffers alone "
              + "take a few hundred KiB), got "
              + memoryBytes
              + " bytes");
    }
    return memoryBytes;
  }

  /**
   * A {@link Builder} for a job over {@code inputs} (files, directories, globs or {@code -}) keyed
   * by {@code key}, every other option at {@code idem sort-dedup}'s default until set.
   *
   * @throws IllegalArgumentException when there is no input
   */
  public static Builder builder(List<String> inputs, KeySpec key) {
    return new Builder(inputs, key);
  }

  /**
   * Builds a {@link SortDedupSpec}, every option at {@code idem sort-dedup}'s default until set.
   */
  public static final class Builder {
    private final List<String> inputs;
    private final KeySpec key;
    private RecordFormat format;
    private Boolean header;
    private KeyNormalizer normalizer = KeyNormalizer.identity();
    private long seed;
    private boolean exactKey;
    private long memoryBytes = DEFAULT_MEMORY;
    private Path tmp;
    private Keep keep = Keep.FIRST;
    private Order order = Order.INPUT;
    private Path output;
    private BadRecordPolicy onBadRecord = new BadRecordPolicy.Fail();
    private int maxRecordBytes = DEFAULT_MAX_RECORD_BYTES;
    private Boolean compressRuns;
    private Path state;
    private VerifyInputs verifyInputs = VerifyInputs.SAMPLE;

    private Builder(List<String> inputs, KeySpec key) {
      this.inputs = requireInputs(inputs);
      this.key = Objects.requireNonNull(key, "key");
    }

    /** Sets the record layout; default: what the key implies ({@link RecordFormat#impliedBy}). */
    public Builder format(RecordFormat v) {
      format = Objects.requireNonNull(v, "format");
      return this;
    }

    /** Sets whether CSV/TSV inputs start with a header line; default: when the column is named. */
    public Builder header(boolean v) {
      header = v;
      return this;
    }

    /** Sets the key normalisation applied before hashing; default: none (identity). */
    public Builder normalizer(KeyNormalizer v) {
      normalizer = Objects.requireNonNull(v, "normalizer");
      return this;
    }

    /** Sets the hash seed; default: 0. */
    public Builder seed(long v) {
      seed = v;
      return this;
    }

    /** Sets whether keys are compared byte for byte, not by fingerprint; default: false. */
    public Builder exactKey(boolean v) {
      exactKey = v;
      return this;
    }

    /**
     * Sets the working memory in bytes, at least {@link #MIN_MEMORY}; default: 64 MiB.
     *
     * @throws IllegalArgumentException below {@link #MIN_MEMORY}
     */
    public Builder memoryBytes(long v) {
      memoryBytes = requireMemory(v);
      return this;
    }

    /** Sets where the sorted runs go; default: {@code null}, the system temporary directory. */
    public Builder tmp(Path v) {
      tmp = v;
      return this;
    }

    /** Sets which occurrence of a key survives; default: {@link Keep#FIRST}. */
    public Builder keep(Keep v) {
      keep = Objects.requireNonNull(v, "keep");
      return this;
    }

    /** Sets the order of the output; default: {@link Order#INPUT}. */
    public Builder order(Order v) {
      order = Objects.requireNonNull(v, "order");
      return this;
    }

    /** Sets the output file; default: {@code null}, standard output. */
    public Builder output(Path v) {
      output = v;
      return this;
    }

    /** Sets what becomes of records without a usable key; default: fail. */
    public Builder onBadRecord(BadRecordPolicy v) {
      onBadRecord = Objects.requireNonNull(v, "onBadRecord");
      return this;
    }

    /**
     * Sets the length above which a record is a bad record, 1 byte to 64 MiB; default: 16 MiB.
     *
     * @throws IllegalArgumentException outside 1 byte to 64 MiB
     */
    public Builder maxRecordBytes(int v) {
      maxRecordBytes = LineReader.checkMaxRecordBytes(v);
      return this;
    }

    /**
     * Sets whether runs are LZ4-compressed; default: {@code null}, only when {@code tmp} lacks the
     * room for plain runs.
     */
    public Builder compressRuns(Boolean v) {
      compressRuns = v;
      return this;
    }

    /** Sets the state directory that makes the job resumable; default: {@code null}, none. */
    public Builder state(Path v) {
      state = v;
      return this;
    }

    /** Sets how a resume checks its inputs; default: {@link VerifyInputs#SAMPLE}. */
    public Builder verifyInputs(VerifyInputs v) {
      verifyInputs = Objects.requireNonNull(v, "verifyInputs");
      return this;
    }

    /**
     * The spec.
     *
     * @throws IllegalArgumentException for options that disagree, like a state without an output
     */
    public SortDedupSpec build() {
      return new SortDedupSpec(
          inputs,
          format != null ? format : RecordFormat.impliedBy(key, inputs),
          key,
          header != null ? header : key instanceof KeySpec.Column c && c.name() != null,
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
          compressRuns,
          state,
          verifyInputs);
    }
  }
}
