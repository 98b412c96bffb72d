package dev.idem.cli;

import dev.idem.engine.corpus.CorpusSpec;
import dev.idem.engine.neardup.Tokenizer;
import java.nio.file.Path;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.Option;
import picocli.CommandLine.TypeConversionException;

/**
 * How a corpus job cuts documents into paragraphs and n-grams, and what it writes besides the
 * documents: the options {@code dedup --unit} and {@code decontaminate} share. A picocli mixin; a
 * value left {@code null} takes the engine's default ({@link CorpusSpec.Builder}).
 */
final class CorpusOptions {

  /** The options of this mixin, to refuse them where they do not apply. */
  static final List<String> NAMES =
      List.of(
          "--split",
          "--min-paragraph-chars",
          "--min-doc-chars",
          "--ngram",
          "--threshold",
          "--tokenizer",
          "--annotate",
          "--id");

  @Option(
      names = "--split",
      paramLabel = "newline|blank-line",
      converter = SplitConverter.class,
      completionCandidates = SplitConverter.class,
      description =
          "Where a document's text is cut into paragraphs: at every line break (newline, or "
              + "'\\n'; as dolma and BFF do; the default), or at blank lines (blank-line: lines "
              + "of white space only).")
  CorpusSpec.Split split;

  @Option(
      names = "--min-paragraph-chars",
      paramLabel = "N",
      description =
          "Paragraphs shorter than N characters (and those of white space only) are never "
              + "judged: kept, and never counted as seen (default: 1).")
  Integer minParagraphChars;

  @Option(
      names = "--min-doc-chars",
      paramLabel = "N",
      description =
          "A document that lost paragraphs and is left with fewer than N characters (white "
              + "space at both ends not counted) is dropped, and counted (default: 1).")
  Integer minDocChars;

  @Option(
      names = "--ngram",
      paramLabel = "N",
      description =
          "N-gram units and decontamination: tokens per n-gram (default: 13). A unit with fewer "
              + "tokens is one n-gram of all of them.")
  Integer ngram;

  @Option(
      names = "--threshold",
      paramLabel = "T",
      converter = ShareConverter.class,
      description =
          "N-gram units: a paragraph whose n-grams were seen before in at least this share is "
              + "removed (default: 0.8, BFF's). Decontamination: the share of a unit's n-grams "
              + "found in the evaluation sets that removes it (default: 0, any one n-gram).")
  Double threshold;

  @Option(
      names = "--tokenizer",
      paramLabel = "words|chars",
      converter = NearDupCommand.TokenizerConverter.class,
      completionCandidates = NearDupCommand.TokenizerConverter.class,
      description = "N-grams of words (runs between white space; the default) or of characters.")
  Tokenizer tokenizer;

  @Option(
      names = "--annotate",
      paramLabel = "FILE",
      description =
          "Also write, for each document, the spans that were (or would be) removed, in "
              + "dolma's attribute layout: {\"id\":…,\"attributes\":{\"NAME\":[[start,end,score],"
              + "…]}}, offsets in code points. Alone (without -o) the documents are not written.")
  Path annotate;

  @Option(
      names = "--id",
      paramLabel = "FIELD",
      description = "With --annotate: the field that names a document (default: id).")
  String id;

  /** Sets on {@code b} what was given. */
  CorpusSpec.Builder applyTo(CorpusSpec.Builder b) {
    if (split != null) {
      b.split(split);
    }
    if (minParagraphChars != null) {
      b.minParagraphChars(minParagraphChars);
    }
    if (minDocChars != null) {
      b.minDocChars(minDocChars);
    }
    if (ngram != null) {
      b.ngram(ngram);
    }
    if (threshold != null) {
      b.threshold(threshold);
    }
    if (tokenizer != null) {
      b.tokenizer(tokenizer);
    }
    if (annotate != null) {
      b.annotate(annotate);
    }
    if (id != null) {
      if (annotate == null) {
        throw new IllegalArgumentException("--id names documents in --annotate: give it too");
      }
      b.id(id);
    }
    return b;
  }

  /** {@code --split}: {@code newline} (or {@code \n}) or {@code blank-line}. */
  static final class SplitConverter implements ITypeConverter<CorpusSpec.Split>, Iterable<String> {
    @Override
    public CorpusSpec.Split convert(String value) {
      String v = value.strip().toLowerCase(java.util.Locale.ROOT);
      return switch (v) {
        case "newline", "\\n", "\n", "line" -> CorpusSpec.Split.NEWLINE;
        case "blank-line", "blank", "\\n\\n", "\n\n" -> CorpusSpec.Split.BLANK_LINE;
        default ->
            throw new TypeConversionException(
                "'" + value + "' is not newline ('\\n') or blank-line");
      };
    }

    @Override
    public Iterator<String> iterator() {
      return List.of("newline", "blank-line").iterator();
    }
  }

  /**
   * A share from 0 to 1 inclusive ({@code 0.8}, {@code 80%}): the thresholds, where 1 (all) and 0
   * (any one) make sense, unlike a rate's bounds.
   */
  static final class ShareConverter implements ITypeConverter<Double> {
    @Override
    public Double convert(String value) {
      String s = value.strip();
      double scale = s.endsWith("%") ? 100 : 1;
      try {
        double v = Double.parseDouble(scale == 1 ? s : s.substring(0, s.length() - 1)) / scale;
        if (v >= 0 && v <= 1) {
          return v;
        }
      } catch (NumberFormatException e) {
        // below
      }
      throw new TypeConversionException(
          "'" + value + "' is not a share from 0 to 1 (examples: 0.8, 80%)");
    }
  }

  /** {@code dedup --unit}: paragraph or ngram. */
  static final class DedupUnitConverter extends ChoiceConverter<CorpusSpec.Mode> {
    DedupUnitConverter() {
      super(Map.of(CorpusSpec.Mode.PARAGRAPHS, "paragraph", CorpusSpec.Mode.NGRAMS, "ngram"));
    }
  }

  /** {@code decontaminate --unit}: document or paragraph. */
  static final class RemovedUnitConverter extends ChoiceConverter<CorpusSpec.Unit> {
    RemovedUnitConverter() {
      super(CorpusSpec.Unit.values());
    }
  }
}
