package dev.idem.engine.corpus;

import dev.idem.core.KeyNormalizer;
import dev.idem.engine.neardup.TextNormalization;
import dev.idem.engine.neardup.Tokenizer;
import dev.idem.engine.records.BadRecordPolicy;
import dev.idem.engine.records.KeySpec;
import dev.idem.engine.records.VerifyInputs;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;

/**
 * Everything that decides a corpus-cleaning job (docs/CORPUS.md): repeated paragraphs removed
 * ({@code idem dedup --unit paragraph}), paragraphs or documents made of n-grams seen before
 * removed ({@code --unit ngram}), or units holding n-grams of evaluation sets removed ({@code idem
 * decontaminate}).
 *
 * <p>Why it is long: thirty options, each with its Javadoc, and the builder with a setter for each
 * of them.
 *
 * @param mode which of the three
 * @param inputs JSON Lines files, directories or globs, as the user named them
 * @param content the document's text: a string field, by name or JSON Pointer
 * @param split how a document's text is cut into paragraphs
 * @param paragraphNormalizer {@link Mode#PARAGRAPHS}: what a paragraph is compared as (dedup's
 *     {@code --normalize} steps); the text written is always the text as read
 * @param minParagraphChars paragraphs of fewer characters (code points), and those of white space
 *     only, are never judged: kept, and never counted as seen
 * @param minDocChars a document that lost paragraphs and is left with fewer characters than this
 *     (white space at both ends not counted) is dropped
 * @param tokenizer n-gram modes: words or characters
 * @param normalization n-gram modes: applied to each token before it is hashed
 * @param ngram n-gram modes: tokens per n-gram
 * @param threshold {@link Mode#NGRAMS}: the share of a paragraph's n-grams seen before at or above
 *     which it is removed; {@link Mode#DECONTAMINATE}: the share of a unit's n-grams found in the
 *     evaluation sets at or above which it is removed (0: any one n-gram)
 * @param documentThreshold {@link Mode#NGRAMS}: the share of a document's n-grams seen before at or
 *     above which the whole document is removed; 0: documents are not judged whole
 * @param unit {@link Mode#DECONTAMINATE}: what is removed, a document or a paragraph
 * @param against {@link Mode#DECONTAMINATE}: the evaluation sets, files, directories or globs
 * @param againstContent the evaluation sets' text field
 * @param fpp 0: exact sets of fingerprints; else a Bloom filter with this false-positive rate
 * @param expected with {@code fpp}: the distinct paragraphs or n-grams the filter is sized for (a
 *     fixed filter: the job stops when more come); 0: a filter that grows
 * @param seed the hash seed
 * @param output where the records go; {@code null} for standard output, or for none when {@code
 *     annotate} is given
 * @param dropped where each removed unit is written (file, line, unit, span, score, text), or
 *     {@code null}
 * @param annotate where each document's removable spans go, in dolma's attribute layout, or {@code
 *     null}
 * @param id with {@code annotate}: the field that names a document
 * @param threads threads that parse documents and hash their units; the output is the same for any
 *     number
 * @param memory the heap the job may plan its exact set for ({@code Long.MAX_VALUE}: the JVM's)
 * @param state the state directory of a resumable job, or {@code null}
 */
public record CorpusSpec(
    Mode mode,
    List<String> inputs,
    KeySpec.JsonField content,
    Split split,
    KeyNormalizer paragraphNormalizer,
    int minParagraphChars,
    int minDocChars,
    Tokenizer tokenizer,
    TextNormalization normalization,
    int ngram,
    double threshold,
    double documentThreshold,
    Unit unit,
    List<String> against,
    KeySpec.JsonField againstContent,
    double fpp,
    long expected,
    long seed,
    Path output,
    Path dropped,
    Path annotate,
    KeySpec.JsonField id,
    BadRecordPolicy onBadRecord,
    int maxRecordBytes,
    int threads,
    long memory,
    Path tmp,
    Path state,
    long checkpointDocuments,
    long checkpointMillis,
    VerifyInputs verifyInputs) {

  /** What a corpus job removes. */
  public enum Mode {
    /** Every later occurrence of a paragraph. */
    PARAGRAPHS,
    /** Paragraphs (and documents) whose n-grams were mostly seen before. */
    NGRAMS,
    /** Units holding n-grams of evaluation sets. */
    DECONTAMINATE
  }

  /** How a document's text is cut into paragraphs. */
  public enum Split {
    /** At every line break ({@code \n}), as dolma and BFF do. */
    NEWLINE,
    /** At every run of line breaks with nothing but white space between them. */
    BLANK_LINE;

    /** As {@code --split} writes it. */
    @Override
    public String toString() {
      return this == NEWLINE ? "\\n" : "blank-line";
    }
  }

  /** What decontamination removes. */
  public enum Unit {
    DOCUMENT,
    PARAGRAPH;

    @Override
    public String toString() {
      return name().toLowerCase(Locale.ROOT);
    }
  }

  public CorpusSpec {
    inputs = List.copyOf(inputs);
    against = against == null ? List.of() : List.copyOf(against);
    if (mode == Mode.DECONTAMINATE && against.isEmpty()) {
      throw new IllegalArgumentException("decontamination needs --against: the evaluation sets");
    }
    if (mode != Mode.PARAGRAPHS && ngram < 1) {
      throw new IllegalArgumentException("--ngram must be at least 1, got " + ngram);
    }
    if (!(threshold >= 0 && threshold <= 1) || (mode == Mode.NGRAMS && threshold == 0)) {
      throw new IllegalArgumentException(
          "--threshold must be "
              + (mode == Mode.NGRAMS ? "above 0" : "at least 0")
              + " and at most 1, got "
              + threshold);
    }
    if (!(documentThreshold >= 0 && documentThreshold <= 1)) {
      throw new IllegalArgumentException(
          "--document-threshold must be above 0 and at most 1, got " + documentThreshold);
    }
    if (!(fpp >= 0 && fpp < 1)) {
      throw new IllegalArgumentException(
          "--fpp must be above 0 and below 1 (0.001 is 0.1 %), got " + fpp);
    }
    if (expected < 0 || (expected > 0 && fpp == 0)) {
      throw new IllegalArgumentException(
          "--expected sizes a filter: give it with --fpp (exact sets grow as they need)");
    }
    if (minParagraphChars < 0 || minDocChars < 0) {
      throw new IllegalArgumentException(
          "--min-paragraph-chars and --min-doc-chars cannot be negative");
    }
    if (threads < 1) {
      throw new IllegalArgumentException("--threads must be at least 1, got " + threads);
    }
    if (state != null && output == null && annotate == null) {
      throw new IllegalArgumentException(
          "--state needs -o FILE: standard output cannot be cut back to a checkpoint, so a "
              + "resumed job could repeat records");
    }
    if (checkpointDocuments < 1 || checkpointMillis < 1) {
      throw new IllegalArgumentException("--checkpoint-every must be positive");
    }
    verifyInputs = verifyInputs == null ? VerifyInputs.SAMPLE : verifyInputs;
    paragraphNormalizer =
        paragraphNormalizer == null ? KeyNormalizer.identity() : paragraphNormalizer;
    normalization = normalization == null ? TextNormalization.DEFAULT : normalization;
    tokenizer = tokenizer == null ? Tokenizer.WORDS : tokenizer;
    split = split == null ? Split.NEWLINE : split;
    unit = unit == null ? (mode == Mode.DECONTAMINATE ? Unit.DOCUMENT : Unit.PARAGRAPH) : unit;
    againstContent = againstContent == null ? content : againstContent;
  }

  /** Whether the units are judged by n-grams (the n-gram and decontamination modes). */
  public boolean byNgrams() {
    return mode != Mode.PARAGRAPHS;
  }

  /** A spec with every option at its default, to change with {@link Builder}. */
  public static Builder builder(Mode mode, List<String> inputs, String content) {
    return new Builder(mode, inputs, content);
  }

  /** Builds a {@link CorpusSpec}, every option at the command's default until set. */
  public static final class Builder {
    private final Mode mode;
    private final List<String> inputs;
    private final KeySpec.JsonField content;
    private Split split = Split.NEWLINE;
    private KeyNormalizer paragraphNormalizer = KeyNormalizer.identity();
    private int minParagraphChars = 1;
    private int minDocChars = 1;
    private Tokenizer tokenizer = Tokenizer.WORDS;
    private TextNormalization normalization = TextNormalization.DEFAULT;
    private int ngram = 13;
    private double threshold;
    private double documentThreshold;
    private Unit unit;
    private List<String> against = List.of();
    private KeySpec.JsonField againstContent;
    private double fpp;
    private long expected;
    private long seed;
    private Path output;
    private Path dropped;
    private Path annotate;
    private KeySpec.JsonField id = KeySpec.jsonField("id", false);
    private BadRecordPolicy onBadRecord = new BadRecordPolicy.Fail();
    private int maxRecordBytes = 16 << 20;
    private int threads = 1;
    private long memory = Long.MAX_VALUE;
    private Path tmp;
    private Path state;
    private long checkpointDocuments = 100_000;
    private long checkpointMillis = 10_000;
    private VerifyInputs verifyInputs = VerifyInputs.SAMPLE;

    private Builder(Mode mode, List<String> inputs, String content) {
      this.mode = mode;
      this.inputs = inputs;
      this.content = KeySpec.jsonField(content, true);
      this.threshold = mode == Mode.NGRAMS ? 0.8 : 0;
    }

    public Builder split(Split v) {
      split = v;
      return this;
    }

    public Builder paragraphNormalizer(KeyNormalizer v) {
      paragraphNormalizer = v;
      return this;
    }

    public Builder minParagraphChars(int v) {
      minParagraphChars = v;
      return this;
    }

    public Builder minDocChars(int v) {
      minDocChars = v;
      return this;
    }

    public Builder tokenizer(Tokenizer v) {
      tokenizer = v;
      return this;
    }

    public Builder normalization(TextNormalization v) {
      normalization = v;
      return this;
    }

    public Builder ngram(int v) {
      ngram = v;
      return this;
    }

    public Builder threshold(double v) {
      threshold = v;
      return this;
    }

    public Builder documentThreshold(double v) {
      documentThreshold = v;
      return this;
    }

    public Builder unit(Unit v) {
      unit = v;
      return this;
    }

    public Builder against(List<String> v) {
      against = v;
      return this;
    }

    public Builder againstContent(String field) {
      againstContent = field == null ? null : KeySpec.jsonField(field, true);
      return this;
    }

    public Builder fpp(double v) {
      fpp = v;
      return this;
    }

    public Builder expected(long v) {
      expected = v;
      return this;
    }

    public Builder seed(long v) {
      seed = v;
      return this;
    }

    public Builder output(Path v) {
      output = v;
      return this;
    }

    public Builder dropped(Path v) {
      dropped = v;
      return this;
    }

    public Builder annotate(Path v) {
      annotate = v;
      return this;
    }

    public Builder id(String field) {
      id = KeySpec.jsonField(field, false);
      return this;
    }

    public Builder onBadRecord(BadRecordPolicy v) {
      onBadRecord = v;
      return this;
    }

    public Builder maxRecordBytes(int v) {
      maxRecordBytes = v;
      return this;
    }

    public Builder threads(int v) {
      threads = v;
      return this;
    }

    public Builder memory(long v) {
      memory = v;
      return this;
    }

    public Builder tmp(Path v) {
      tmp = v;
      return this;
    }

    public Builder state(Path v) {
      state = v;
      return this;
    }

    public Builder checkpointEvery(long documents, long millis) {
      checkpointDocuments = documents;
      checkpointMillis = millis;
      return this;
    }

    public Builder verifyInputs(VerifyInputs v) {
      verifyInputs = v;
      return this;
    }

    /**
     * The spec.
     *
     * @throws IllegalArgumentException naming the option that is out of range
     */
    public CorpusSpec build() {
      return new CorpusSpec(
          mode,
          inputs,
          content,
          split,
          paragraphNormalizer,
          minParagraphChars,
          minDocChars,
          tokenizer,
          normalization,
          ngram,
          threshold,
          documentThreshold,
          unit,
          against,
          againstContent,
          fpp,
          expected,
          seed,
          output,
          dropped,
          annotate,
          id,
          onBadRecord,
          maxRecordBytes,
          threads,
          memory,
          tmp,
          state,
          checkpointDocuments,
          checkpointMillis,
          verifyInputs);
    }
  }
}
