package dev.idem.parquet;

import dev.idem.core.KeyNormalizer;
import dev.idem.engine.records.VerifyInputs;
import dev.idem.engine.run.CrashPoints;
import dev.idem.engine.run.JobListener;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Objects;

/**
 * Exact dedup of Apache Parquet files: the first row of each key, in input order, written whole to
 * Parquet with the inputs' schema.
 *
 * <pre>{@code
 * ParquetDedupResult r = ParquetDedup.builder()
 *     .inputs(List.of("lake/"))           // files, directories, globs; in name order
 *     .key(List.of("meta.url"))           // one or more leaf columns: name, dotted path, /pointer
 *     .output(Path.of("clean"))           // a directory of part files
 *     .state(Path.of("state"))            // resumable: run it again after a crash
 *     .run();
 * }</pre>
 *
 * <p>Each row group is read twice: its key columns alone, to judge every row, then whole, to write
 * the kept rows. With a state directory, a checkpoint closes the current part file at the end of a
 * row group and commits the keys with the position after it; a resumed job deletes the parts
 * written after that checkpoint and reads on from there, so its output has the same rows in the
 * same order as an uninterrupted run's. See docs/FORMAT.md "Parquet keys" for how values become
 * keys.
 */
public final class ParquetDedup {

  /** The output's page compression. */
  public enum Compression {
    ZSTD,
    SNAPPY,
    GZIP,
    NONE
  }

  /** What to do with a row whose key column is null. */
  public enum NullKeys {
    /** Stop with an error naming the file, row group and row (the default). */
    FAIL,
    /** Leave the row out and count it. */
    SKIP
  }

  final List<String> inputs;
  final List<String> key;
  final boolean keyAsText;
  final KeyNormalizer normalizer;
  final long seed;
  final Path output;
  final Path dropped;
  final Path state;
  final long checkpointRows;
  final Duration checkpointInterval;
  final Compression compression;
  final long rowGroupBytes;
  final NullKeys nullKeys;
  final long cacheBytes;
  final JobListener listener;
  final VerifyInputs verifyInputs;

  private ParquetDedup(Builder b) {
    this.inputs = b.inputs;
    this.key = b.key;
    this.keyAsText = b.keyAsText;
    this.normalizer = b.normalizer;
    this.seed = b.seed;
    this.output = b.output;
    this.dropped = b.dropped;
    this.state = b.state;
    this.checkpointRows = b.checkpointRows;
    this.checkpointInterval = b.checkpointInterval;
    this.compression = b.compression;
    this.rowGroupBytes = b.rowGroupBytes;
    this.nullKeys = b.nullKeys;
    this.cacheBytes = b.cacheBytes;
    this.listener = b.listener;
    this.verifyInputs = b.verifyInputs;
  }

  public static Builder builder() {
    return new Builder();
  }

  /**
   * Whether {@code name} is read as Parquet: it ends in {@code .parquet} (any case).
   *
   * @param name a file name as given or expanded
   */
  public static boolean isParquetName(String name) {
    return name.toLowerCase(java.util.Locale.ROOT).endsWith(".parquet");
  }

  /**
   * Whether {@code name} is what Spark and Hadoop leave beside part files ({@code _SUCCESS}, {@code
   * _metadata}): a name starting with {@code _} that does not end in {@code .parquet}. Skipped.
   */
  public static boolean isMarker(String name) {
    String file = Path.of(name).getFileName().toString();
    return file.startsWith("_") && !isParquetName(file);
  }

  /** Builds a {@link ParquetDedup}; each setter checks its value. */
  public static final class Builder {
    private List<String> inputs;
    private List<String> key;
    private boolean keyAsText;
    private KeyNormalizer normalizer = KeyNormalizer.identity();
    private long seed;
    private Path output;
    private Path dropped;
    private Path state;
    private long checkpointRows = 1_000_000;
    private Duration checkpointInterval = Duration.ofSeconds(30);
    private Compression compression = Compression.ZSTD;
    private long rowGroupBytes = 128L << 20;
    private NullKeys nullKeys = NullKeys.FAIL;
    private long cacheBytes = 64L << 20;
    private VerifyInputs verifyInputs = VerifyInputs.SAMPLE;
    private JobListener listener = JobListener.NONE;

    private Builder() {}

    /** The input files, directories (their files) or globs, read in the order given. */
    public Builder inputs(List<String> names) {
      if (names.isEmpty()) {
        throw new IllegalArgumentException("give at least one input file, directory or glob");
      }
      this.inputs = List.copyOf(names);
      return this;
    }

    /** The key columns: names ({@code id}), dotted paths ({@code meta.url}) or pointers. */
    public Builder key(List<String> columns) {
      if (columns.isEmpty() || columns.stream().anyMatch(String::isBlank)) {
        throw new IllegalArgumentException(
            "name the key column(s), e.g. --key id or --key meta.url or --key a,b; got " + columns);
      }
      this.key = List.copyOf(columns);
      return this;
    }

    /** Compare keys as text ({@code 1} and {@code "1"} then are one key); default false. */
    public Builder keyAsText(boolean asText) {
      this.keyAsText = asText;
      return this;
    }

    /** How string key values are normalised before hashing (default: not at all). */
    public Builder normalizer(KeyNormalizer n) {
      this.normalizer = Objects.requireNonNull(n);
      return this;
    }

    /** The hash seed (default 0). */
    public Builder seed(long s) {
      this.seed = s;
      return this;
    }

    /**
     * Where kept rows go: a directory of part files, or (without a state) one file ending in {@code
     * .parquet}.
     */
    public Builder output(Path path) {
      this.output = Objects.requireNonNull(path);
      return this;
    }

    /**
     * Where the duplicates go, whole, like the output: a directory of part files numbered as the
     * output's (part N of each closes at the same checkpoint), or one file beside a one-file
     * output. Default: nowhere.
     */
    public Builder dropped(Path path) {
      this.dropped = path;
      return this;
    }

    /** A state directory: the job checkpoints there and resumes from it after a crash. */
    public Builder state(Path dir) {
      this.state = dir;
      return this;
    }

    /**
     * A checkpoint (and a new part file) at the first row-group end after this many rows (default
     * 1,000,000) or after {@link #checkpointInterval}, whichever comes first.
     */
    public Builder checkpointRows(long rows) {
      if (rows < 1) {
        throw new IllegalArgumentException("checkpoint rows must be at least 1, got " + rows);
      }
      this.checkpointRows = rows;
      return this;
    }

    /** A checkpoint at the first row-group end after this much time (default 30 s). */
    public Builder checkpointInterval(Duration interval) {
      if (interval.isNegative() || interval.isZero()) {
        throw new IllegalArgumentException(
            "the checkpoint interval must be positive, got " + interval);
      }
      this.checkpointInterval = interval;
      return this;
    }

    /** The output's compression (default zstd). */
    public Builder compression(Compression c) {
      this.compression = Objects.requireNonNull(c);
      return this;
    }

    /** The output's row-group size in bytes (default 128 MiB), at least 1 MiB. */
    public Builder rowGroupBytes(long bytes) {
      if (bytes < (1 << 20)) {
        throw new IllegalArgumentException(
            "the row-group size must be at least 1 MiB, got " + bytes);
      }
      this.rowGroupBytes = bytes;
      return this;
    }

    /** What a null key does (default: fail). */
    public Builder onNullKey(NullKeys policy) {
      this.nullKeys = Objects.requireNonNull(policy);
      return this;
    }

    /** The resident part of the exact tier (RocksDB's block cache) with a state; default 64 MiB. */
    public Builder cacheBytes(long bytes) {
      this.cacheBytes = Math.max(bytes, 8L << 20);
      return this;
    }

    /**
     * How a resume checks that the inputs still hold what the job read of them (default: {@link
     * VerifyInputs#SAMPLE}).
     */
    public Builder verifyInputs(VerifyInputs how) {
      this.verifyInputs = java.util.Objects.requireNonNull(how, "verifyInputs");
      return this;
    }

    /** Hears about the job: notes for the user (a resume, parts deleted) and warnings. */
    public Builder listener(JobListener l) {
      this.listener = Objects.requireNonNull(l);
      return this;
    }

    /**
     * Runs the job.
     *
     * @throws IllegalStateException when inputs, key or output were not given
     * @throws ParquetInputException for an input the job cannot use, named with where and why
     * @throws dev.idem.engine.JobException for a state that belongs to another job, or an output
     *     that cannot be resumed
     * @throws IOException for a file that cannot be read or written
     */
    public ParquetDedupResult run() throws IOException {
      if (inputs == null || key == null || output == null) {
        throw new IllegalStateException("set inputs(…), key(…) and output(…) before run()");
      }
      return new ParquetJob(new ParquetDedup(this), CrashPoints.configured()).run();
    }
  }
}
