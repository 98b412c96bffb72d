package dev.idem.engine.neardup;

import dev.idem.engine.input.LineReader;
import dev.idem.engine.records.BadRecordPolicy;
import dev.idem.engine.records.KeySpec;
import dev.idem.engine.records.RecordFormat;
import dev.idem.engine.records.VerifyInputs;
import java.nio.file.Path;
import java.util.List;
import java.util.Objects;

/**
 * Everything that decides a near-duplicate job ({@code idem near-dup}). Made with {@link #builder},
 * which starts every option at the command's default.
 *
 * @param inputs files, directories, globs or {@code -}, as the user named them
 * @param format {@link RecordFormat#JSONL} with a content field, or {@link RecordFormat#LINES}
 * @param content the document's text: a JSON content field, or the whole line
 * @param tokenizer words or characters
 * @param ngram tokens per shingle
 * @param normalization applied to the text before it is cut into tokens
 * @param threshold the similarity at or above which two documents are near-duplicates
 * @param numPerm MinHash components per signature
 * @param bands the LSH bands (B × R ≤ numPerm)
 * @param verify whether a candidate pair is judged by the exact Jaccard of its shingle sets rather
 *     than the MinHash estimate
 * @param streaming one read: each document written as soon as it is judged against the earlier ones
 *     (removed when it has an accepted pair with one), rather than the batch plan's clusters
 * @param seed chooses the MinHash permutations
 * @param output where the kept documents go; {@code null} for standard output
 * @param dropped where removed documents go (FILE, LINE, record), or {@code null}
 * @param clusters where each clustered document's cluster goes, or {@code null}
 * @param tmp where standard input is kept for the second read (unused when streaming) and where
 *     judging's tables go past {@code memory}; {@code null}: the system's temporary directory
 * @param memory bytes of signatures, band tables, shingle sets and fingerprints judging holds in
 *     memory before the rest goes to disk in {@code tmp} ({@link NearDupPlan#judgingBudget} of
 *     {@code --memory}; {@link Long#MAX_VALUE}: no limit)
 * @param threads threads that shingle and sign documents (the output is the same for any number)
 * @param state the state directory of a resumable job, or {@code null}
 * @param checkpointDocuments with a state: documents written between checkpoints, at most
 * @param checkpointMillis with a state: milliseconds between checkpoints, at most
 * @param verifyInputs how a resume checks that the inputs still hold what the job read of them
 */
public record NearDupSpec(
    List<String> inputs,
    RecordFormat format,
    KeySpec content,
    Tokenizer tokenizer,
    int ngram,
    TextNormalization normalization,
    double threshold,
    int numPerm,
    LshBands bands,
    boolean verify,
    boolean streaming,
    long seed,
    Path output,
    Path dropped,
    Path clusters,
    BadRecordPolicy onBadRecord,
    int maxRecordBytes,
    Path tmp,
    long memory,
    int threads,
    Path state,
    long checkpointDocuments,
    long checkpointMillis,
    VerifyInputs verifyInputs) {

  public NearDupSpec {
    requireNgram(ngram);
    requireThreshold(threshold);
    bands.requireWithin(numPerm);
    if (state != null && output == null) {
      throw new IllegalArgumentException(
          "--state needs -o FILE: standard output cannot be cut back to a checkpoint, so a "
              + "resumed job could repeat records");
    }
    requireMemory(memory);
    requireThreads(threads);
    requireCheckpoint(checkpointDocuments);
    requireCheckpoint(checkpointMillis);
    inputs = List.copyOf(inputs);
    verifyInputs = verifyInputs == null ? VerifyInputs.SAMPLE : verifyInputs;
  }

  private static int requireNgram(int ngram) {
    if (ngram < 1) {
      throw new IllegalArgumentException("--ngram must be at least 1, got " + ngram);
    }
    return ngram;
  }

  private static double requireThreshold(double threshold) {
    if (!(threshold > 0 && threshold <= 1)) {
      throw new IllegalArgumentException(
          "--threshold must be above 0 and at most 1, got " + threshold);
    }
    return threshold;
  }

  private static long requireMemory(long memory) {
    if (memory < 0) {
      throw new IllegalArgumentException("the judging budget cannot be negative, got " + memory);
    }
    return memory;
  }

  private static int requireThreads(int threads) {
    if (threads < 1) {
      throw new IllegalArgumentException("--threads must be at least 1, got " + threads);
    }
    return threads;
  }

  private static long requireCheckpoint(long every) {
    if (every < 1) {
      throw new IllegalArgumentException("--checkpoint-every must be positive, got " + every);
    }
    return every;
  }

  /**
   * A {@link Builder} for a job over {@code inputs} (files, directories, globs or {@code -}) whose
   * documents are the text of the JSON field {@code content} (a name or a pointer), or whole lines
   * when it is {@code null}; every other option at {@code idem near-dup}'s default until set.
   */
  public static Builder builder(List<String> inputs, String content) {
    return new Builder(inputs, content);
  }

  /** Builds a {@link NearDupSpec}, every option at {@code idem near-dup}'s default until set. */
  public static final class Builder {
    private final List<String> inputs;
    private final RecordFormat format;
    private final KeySpec content;
    private Tokenizer tokenizer = Tokenizer.WORDS;
    private int ngram = 5;
    private TextNormalization normalization = TextNormalization.DEFAULT;
    private double threshold = 0.8;
    private int numPerm = LshBands.DEFAULT_PERMUTATIONS;
    private LshBands bands;
    private boolean verify;
    private boolean streaming;
    private long seed;
    private Path output;
    private Path dropped;
    private Path clusters;
    private BadRecordPolicy onBadRecord = new BadRecordPolicy.Fail();
    private int maxRecordBytes = 16 << 20;
    private Path tmp;
    private long memory = NearDupPlan.judgingBudget(Runtime.getRuntime().maxMemory());
    private int threads = Runtime.getRuntime().availableProcessors();
    private Path state;
    private long checkpointDocuments = 100_000;
    private long checkpointMillis = 10_000;
    private VerifyInputs verifyInputs = VerifyInputs.SAMPLE;

    private Builder(List<String> inputs, String content) {
      this.inputs = List.copyOf(inputs);
      this.format = content != null ? RecordFormat.JSONL : RecordFormat.LINES;
      this.content = content != null ? KeySpec.jsonField(content, true) : new KeySpec.WholeLine();
    }

    /** Sets what a token is, words or characters; default: {@link Tokenizer#WORDS}. */
    public Builder tokenizer(Tokenizer v) {
      tokenizer = Objects.requireNonNull(v, "tokenizer");
      return this;
    }

    /**
     * Sets the tokens per shingle, at least 1; default: 5.
     *
     * @throws IllegalArgumentException below 1
     */
    public Builder ngram(int v) {
      ngram = requireNgram(v);
      return this;
    }

    /**
     * Sets the normalisation applied before tokenizing; default: {@link TextNormalization#DEFAULT}
     * (nfkc, lower, punct).
     */
    public Builder normalization(TextNormalization v) {
      normalization = Objects.requireNonNull(v, "normalization");
      return this;
    }

    /**
     * Sets the similarity at or above which documents are near-duplicates, above 0 and at most 1;
     * default: 0.8.
     *
     * @throws IllegalArgumentException outside (0, 1]
     */
    public Builder threshold(double v) {
      threshold = requireThreshold(v);
      return this;
    }

    /**
     * Sets the MinHash permutations per signature, 1 to 1024; default: {@link
     * LshBands#DEFAULT_PERMUTATIONS}.
     *
     * @throws IllegalArgumentException outside 1 to 1024
     */
    public Builder numPerm(int v) {
      numPerm = LshBands.permutations(v, null, null);
      return this;
    }

    /**
     * Sets the LSH bands, at most {@code numPerm} components; default: {@code null}, {@link
     * LshBands#optimal} for the threshold and {@code numPerm}.
     */
    public Builder bands(LshBands v) {
      bands = v;
      return this;
    }

    /** Sets whether a candidate pair is judged by its exact Jaccard similarity; default: false. */
    public Builder verify(boolean v) {
      verify = v;
      return this;
    }

    /** Sets whether the job reads once, judging each document as it comes; default: false. */
    public Builder streaming(boolean v) {
      streaming = v;
      return this;
    }

    /** Sets the seed that chooses the MinHash permutations; default: 0. */
    public Builder seed(long v) {
      seed = v;
      return this;
    }

    /** Sets where the kept documents go; default: {@code null}, standard output. */
    public Builder output(Path v) {
      output = v;
      return this;
    }

    /** Sets where removed documents go; default: {@code null}, nowhere. */
    public Builder dropped(Path v) {
      dropped = v;
      return this;
    }

    /** Sets where each clustered document's cluster goes; default: {@code null}, nowhere. */
    public Builder clusters(Path v) {
      clusters = v;
      return this;
    }

    /** Sets what becomes of records without a usable document; default: fail. */
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
     * Sets where standard input's copy and judging's spilled tables go; default: {@code null}, the
     * system temporary directory.
     */
    public Builder tmp(Path v) {
      tmp = v;
      return this;
    }

    /**
     * Sets the bytes judging holds in memory before spilling to {@code tmp} ({@link
     * Long#MAX_VALUE}: no limit); default: {@link NearDupPlan#judgingBudget} of the JVM's heap.
     *
     * @throws IllegalArgumentException when negative
     */
    public Builder memory(long v) {
      memory = requireMemory(v);
      return this;
    }

    /**
     * Sets the threads that shingle and sign documents, at least 1; default: one per core.
     *
     * @throws IllegalArgumentException below 1
     */
    public Builder threads(int v) {
      threads = requireThreads(v);
      return this;
    }

    /** Sets the state directory that makes the job resumable; default: {@code null}, none. */
    public Builder state(Path v) {
      state = v;
      return this;
    }

    /**
     * Sets the documents written between checkpoints, at most; default: 100,000.
     *
     * @throws IllegalArgumentException below 1
     */
    public Builder checkpointDocuments(long v) {
      checkpointDocuments = requireCheckpoint(v);
      return this;
    }

    /**
     * Sets the milliseconds between checkpoints, at most; default: 10,000 (10 s).
     *
     * @throws IllegalArgumentException below 1
     */
    public Builder checkpointMillis(long v) {
      checkpointMillis = requireCheckpoint(v);
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
     * @throws IllegalArgumentException for options that disagree, like bands of more components
     *     than {@code numPerm}, or a state without an output
     */
    public NearDupSpec build() {
      return new NearDupSpec(
          inputs,
          format,
          content,
          tokenizer,
          ngram,
          normalization,
          threshold,
          numPerm,
          bands != null ? bands : LshBands.optimal(threshold, numPerm),
          verify,
          streaming,
          seed,
          output,
          dropped,
          clusters,
          onBadRecord,
          maxRecordBytes,
          tmp,
          memory,
          threads,
          state,
          checkpointDocuments,
          checkpointMillis,
          verifyInputs);
    }
  }
}
