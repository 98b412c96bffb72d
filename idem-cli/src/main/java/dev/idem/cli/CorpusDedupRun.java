package dev.idem.cli;

import dev.idem.core.filter.FilterType;
import dev.idem.engine.DedupMode;
import dev.idem.engine.KeyMode;
import dev.idem.engine.corpus.CorpusSpec;
import dev.idem.engine.neardup.TextNormalization;
import dev.idem.engine.records.RecordFormat;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.TypeConversionException;

/**
 * {@code idem dedup --unit paragraph|ngram}: the command's options mapped onto a corpus job ({@link
 * CorpusSpec}), those with no meaning for units refused by name rather than ignored.
 *
 * <p>{@code --fpp} means the filter-only mode only when given (the command's default rate is for
 * its filter in front of an exact tier); without it the units are judged exactly.
 */
final class CorpusDedupRun {

  private final DedupCommand c;
  private final Io io;

  CorpusDedupRun(DedupCommand command, Io io) {
    this.c = command;
    this.io = io;
  }

  /** Refuses the corpus options when {@code --unit} is not given: they would be ignored. */
  static void refuseWithoutUnit(DedupCommand c) {
    List<String> given = new ArrayList<>();
    for (String name : CorpusOptions.NAMES) {
      if (c.spec.commandLine().getParseResult().hasMatchedOption(name)) {
        given.add(name);
      }
    }
    if (c.spec.commandLine().getParseResult().hasMatchedOption("--document-threshold")) {
      given.add("--document-threshold");
    }
    if (!given.isEmpty()) {
      throw new ParameterException(
          c.spec.commandLine(),
          String.join(", ", given)
              + (given.size() == 1 ? " applies" : " apply")
              + " to corpus cleaning: give --unit paragraph or --unit ngram with --content FIELD");
    }
  }

  int call() throws IOException {
    return new CorpusRun(io, "idem dedup", c.output, c.badRecords).run(spec());
  }

  private CorpusSpec spec() {
    refuseWhatDoesNotApply();
    c.output.requireOneUseOfStandardOutput(c.spec.commandLine());
    try {
      CorpusSpec.Mode mode = c.unit;
      CorpusSpec.Builder b = CorpusSpec.builder(mode, c.inputs, c.record.key.content);
      c.corpus.applyTo(b);
      if (matched("--normalize")) {
        if (mode == CorpusSpec.Mode.PARAGRAPHS) {
          b.paragraphNormalizer(c.record.normalizer());
        } else {
          b.normalization(TextNormalization.parse(c.record.normalize));
        }
      }
      if (c.documentThreshold != null) {
        if (mode != CorpusSpec.Mode.NGRAMS) {
          throw new IllegalArgumentException(
              "--document-threshold judges documents by their n-grams: give --unit ngram");
        }
        b.documentThreshold(c.documentThreshold);
      }
      if (mode == CorpusSpec.Mode.PARAGRAPHS) {
        for (String o : List.of("--ngram", "--threshold", "--tokenizer")) {
          if (matched(o)) {
            throw new IllegalArgumentException(
                o + " applies to n-grams: give --unit ngram (paragraphs are compared whole)");
          }
        }
      }
      if (matched("--fpp")) {
        b.fpp(c.fpp);
      }
      if (c.expected.isKnown()) {
        if (!matched("--fpp")) {
          throw new IllegalArgumentException(
              "--expected sizes a Bloom filter: give --fpp too (an exact set grows as it needs)");
        }
        b.expected(c.expected.count());
      } else if (matched("--expected")) {
        throw new IllegalArgumentException(
            "--expected auto does not apply to units: give a count of distinct "
                + (mode == CorpusSpec.Mode.PARAGRAPHS ? "paragraphs" : "n-grams")
                + ", or leave it out (a filter that grows)");
      }
      CheckpointEvery every = c.checkpoints();
      b.seed(c.seed)
          .output(c.output.file())
          .dropped(c.dropped)
          .onBadRecord(c.badRecords.policy)
          .maxRecordBytes(c.badRecords.maxRecordBytes())
          .threads(threads(c.threads))
          .memory(c.memory > 0 ? c.memory : Long.MAX_VALUE)
          .tmp(c.tmp)
          .state(c.state)
          .checkpointEvery(every.count(), Math.max(1, every.interval().toMillis()))
          .verifyInputs(c.verify.verifyInputs);
      return b.build();
    } catch (IllegalArgumentException | TypeConversionException e) {
      throw new ParameterException(c.spec.commandLine(), e.getMessage());
    }
  }

  /** {@code --threads 0}: all cores but two, at least one, as for records. */
  static int threads(int given) {
    if (given < 0) {
      throw new IllegalArgumentException("--threads must be 0 (automatic) or more, got " + given);
    }
    return given > 0 ? given : Math.max(1, Runtime.getRuntime().availableProcessors() - 2);
  }

  private boolean matched(String option) {
    return c.spec.commandLine().getParseResult().hasMatchedOption(option);
  }

  /** Options with a meaning for whole records only, refused rather than silently ignored. */
  private void refuseWhatDoesNotApply() {
    RecordOptions.KeyOptions k = c.record.key;
    if (k.content == null) {
      throw usage(
          "--unit cuts documents into paragraphs: give their text as --content FIELD (a JSON "
              + "Lines string field), not "
              + (k.wholeLine ? "--whole-line" : k.column != null ? "--column" : "--key"));
    }
    List<String> refused = new ArrayList<>();
    if (c.record.format != null && c.record.format != RecordFormat.JSONL) {
      refused.add("--format " + c.record.format.name().toLowerCase(java.util.Locale.ROOT));
    }
    if (c.record.header != null) {
      refused.add("--header");
    }
    if (c.mode != DedupMode.EXACT) {
      refused.add("--mode approximate (give --fpp P for a filter alone)");
    }
    if (c.keyMode != KeyMode.FINGERPRINT) {
      refused.add("--key-mode full");
    }
    if (c.filterType != null && c.filterType != FilterType.BLOCKED) {
      refused.add("--filter");
    }
    if (matched("--exact-store")) {
      refused.add("--exact-store");
    }
    if (c.windowOptions != null) {
      refused.add("--window");
    }
    if (c.shard != null) {
      refused.add("--shard");
    }
    if (c.seenBefore != null) {
      refused.add("--seen-before");
    }
    if (c.recent != 0) {
      refused.add("--recent");
    }
    if (c.metricsPort != null) {
      refused.add("--metrics-port");
    }
    if (matched("--rocksdb-cache")) {
      refused.add("--rocksdb-cache");
    }
    if (!refused.isEmpty()) {
      throw usage(
          String.join(", ", refused)
              + (refused.size() == 1 ? " does" : " do")
              + " not apply with --unit: units are judged in input order against one set of "
              + "fingerprints in memory (exact), or a Bloom filter alone with --fpp");
    }
  }

  private ParameterException usage(String message) {
    return new ParameterException(c.spec.commandLine(), message);
  }
}
