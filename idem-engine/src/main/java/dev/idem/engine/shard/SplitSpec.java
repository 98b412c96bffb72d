package dev.idem.engine.shard;

import dev.idem.core.KeyNormalizer;
import dev.idem.engine.input.Compression;
import dev.idem.engine.input.LineReader;
import dev.idem.engine.records.BadRecordPolicy;
import dev.idem.engine.records.KeySpec;
import dev.idem.engine.records.RecordFormat;
import dev.idem.engine.records.VerifyInputs;
import java.nio.file.Path;
import java.util.List;
import java.util.Objects;

/**
 * What a split is told. Made with {@link #builder}, which starts every option at {@code idem
 * split}'s default.
 *
 * @param inputs files, directories or globs, as given
 * @param format record layout
 * @param key what identifies a record
 * @param header whether CSV/TSV inputs start with a header line
 * @param normalizer applied to keys before hashing
 * @param maxRecordBytes longer records are bad records
 * @param ring the consistent-hash ring: one shard file per node
 * @param directory where the shard files (and the split's state) go
 * @param compression how shard files are compressed ({@code .gz}, {@code .zst} names)
 * @param onBadRecord what to do with a record without a usable key
 * @param checkpointRecords records between checkpoints
 * @param verifyInputs how a resume checks that the inputs still hold what was read
 */
public record SplitSpec(
    List<String> inputs,
    RecordFormat format,
    KeySpec key,
    boolean header,
    KeyNormalizer normalizer,
    int maxRecordBytes,
    ConsistentHashRing ring,
    Path directory,
    Compression compression,
    BadRecordPolicy onBadRecord,
    long checkpointRecords,
    VerifyInputs verifyInputs) {

  public SplitSpec {
    inputs = List.copyOf(inputs);
    requireCheckpointRecords(checkpointRecords);
    verifyInputs = verifyInputs == null ? VerifyInputs.SAMPLE : verifyInputs;
  }

  private static long requireCheckpointRecords(long records) {
    if (records < 1) {
      throw new IllegalArgumentException(
          "--checkpoint-every must be at least 1 record, got " + records);
    }
    return records;
  }

  /**
   * A {@link Builder} for a split of {@code inputs} (files, directories or globs) by {@code key}
   * into one shard file per node of {@code ring} in {@code directory}, every other option at {@code
   * idem split}'s default until set.
   *
   * @throws IllegalArgumentException when there is no input
   */
  public static Builder builder(
      List<String> inputs, KeySpec key, ConsistentHashRing ring, Path directory) {
    return new Builder(inputs, key, ring, directory);
  }

  /** Builds a {@link SplitSpec}, every option at {@code idem split}'s default until set. */
  public static final class Builder {
    private final List<String> inputs;
    private final KeySpec key;
    private final ConsistentHashRing ring;
    private final Path directory;
    private RecordFormat format;
    private Boolean header;
    private KeyNormalizer normalizer = KeyNormalizer.identity();
    private int maxRecordBytes = 16 << 20;
    private Compression compression = Compression.NONE;
    private BadRecordPolicy onBadRecord = new BadRecordPolicy.Fail();
    private long checkpointRecords = 100_000;
    private VerifyInputs verifyInputs = VerifyInputs.SAMPLE;

    private Builder(List<String> inputs, KeySpec key, ConsistentHashRing ring, Path directory) {
      this.inputs = List.copyOf(inputs);
      if (this.inputs.isEmpty()) {
        throw new IllegalArgumentException("split needs at least one input file");
      }
      this.key = Objects.requireNonNull(key, "key");
      this.ring = Objects.requireNonNull(ring, "ring");
      this.directory = Objects.requireNonNull(directory, "directory");
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

    /**
     * Sets the length above which a record is a bad record, 1 byte to 64 MiB; default: 16 MiB.
     *
     * @throws IllegalArgumentException outside 1 byte to 64 MiB
     */
    public Builder maxRecordBytes(int v) {
      maxRecordBytes = LineReader.checkMaxRecordBytes(v);
      return this;
    }

    /** Sets how shard files are compressed; default: {@link Compression#NONE}. */
    public Builder compression(Compression v) {
      compression = Objects.requireNonNull(v, "compression");
      return this;
    }

    /** Sets what becomes of records without a usable key; default: fail. */
    public Builder onBadRecord(BadRecordPolicy v) {
      onBadRecord = Objects.requireNonNull(v, "onBadRecord");
      return this;
    }

    /**
     * Sets the records between checkpoints, at least 1; default: 100,000.
     *
     * @throws IllegalArgumentException below 1
     */
    public Builder checkpointRecords(long v) {
      checkpointRecords = requireCheckpointRecords(v);
      return this;
    }

    /** Sets how a resume checks its inputs; default: {@link VerifyInputs#SAMPLE}. */
    public Builder verifyInputs(VerifyInputs v) {
      verifyInputs = Objects.requireNonNull(v, "verifyInputs");
      return this;
    }

    /** The spec. */
    public SplitSpec build() {
      return new SplitSpec(
          inputs,
          format != null ? format : RecordFormat.impliedBy(key, inputs),
          key,
          header != null ? header : key instanceof KeySpec.Column c && c.name() != null,
          normalizer,
          maxRecordBytes,
          ring,
          directory,
          compression,
          onBadRecord,
          checkpointRecords,
          verifyInputs);
    }
  }
}
