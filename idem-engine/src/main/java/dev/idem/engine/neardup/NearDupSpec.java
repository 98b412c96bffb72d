package dev.idem.engine.neardup;

import dev.idem.engine.records.BadRecordPolicy;
import dev.idem.engine.records.KeySpec;
import dev.idem.engine.records.RecordFormat;
import dev.idem.engine.records.VerifyInputs;
import java.nio.file.Path;
import java.util.List;

/**
 * Everything that decides a near-duplicate job ({@code idem near-dup}).
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
    if (!(threshold > 0 && threshold <= 1)) {
      throw new IllegalArgumentException(
          "--threshold must be above 0 and at most 1, got " + threshold);
    }
    bands.requireWithin(numPerm);
    if (state != null && output == null) {
      throw new IllegalArgumentException(
          "--state needs -o FILE: standard output cannot be cut back to a checkpoint, so a "
              + "resumed job could repeat records");
    }
    if (memory < 0) {
      throw new IllegalArgumentException("the judging budget cannot be negative, got " + memory);
    }
    if (threads < 1) {
      throw new IllegalArgumentException("--threads must be at least 1, got " + threads);
    }
    if (checkpointDocuments < 1 || checkpointMillis < 1) {
      throw new IllegalArgumentException("--checkpoint-every must be positive");
    }
    inputs = List.copyOf(inputs);
    verifyInputs = verifyInputs == null ? VerifyInputs.SAMPLE : verifyInputs;
  }
}
