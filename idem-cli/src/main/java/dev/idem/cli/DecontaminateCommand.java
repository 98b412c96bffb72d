package dev.idem.cli;

import dev.idem.engine.corpus.CorpusSpec;
import dev.idem.engine.neardup.TextNormalization;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code idem decontaminate}: removes documents or paragraphs holding evaluation sets' n-grams. */
@Command(
    name = "decontaminate",
    footerHeading = "%nExamples:%n",
    footer = {
      "  # documents holding any evaluation 13-gram removed; the spans to --dropped",
      "  idem decontaminate --against 'evals/*.jsonl' --content text --ngram 13 \\",
      "      --dropped contaminated.tsv -o clean.jsonl corpus/",
      "  # only the paragraphs at least half made of them; resumable",
      "  idem decontaminate --against evals/ --content text --unit paragraph \\",
      "      --threshold 0.5 --state st-decon -o clean.jsonl corpus/",
      "  # mark instead of remove: dolma attribute spans, no documents written",
      "  idem decontaminate --against evals/ --content text \\",
      "      --annotate spans.jsonl corpus/"
    },
    mixinStandardHelpOptions = true,
    versionProvider = IdemCommand.Version.class,
    sortOptions = false,
    description = {
      "Remove from a corpus the documents (or paragraphs, --unit paragraph) that hold n-grams "
          + "of evaluation sets, so that test data does not leak into training data "
          + "(docs/CORPUS.md).",
      "The evaluation sets (--against) are read first into a set that is then read only: "
          + "exact (fingerprints in memory), or a Bloom filter at --fpp. A unit is removed when "
          + "at least --threshold of its n-grams are in it (default: any one); --dropped gets "
          + "the span matched. Everything else is written byte for byte, a document that lost "
          + "paragraphs with only its content field rewritten. With --state DIR the job "
          + "checkpoints, and after a crash the same command resumes it exactly once.",
      ""
    },
    exitCodeListHeading = "%nExit status:%n",
    exitCodeList = {
      "0:done (or already done: the state says the job is complete)",
      "1:bad input under --on-bad-record fail (after a checkpoint), an unreadable input or "
          + "unwritable output",
      "2:usage error, a bad evaluation set, or a --state that belongs to another job or is in use"
    })
final class DecontaminateCommand implements Callable<Integer> {

  @Spec CommandSpec spec;

  @Option(
      names = "--against",
      paramLabel = "EVALS",
      required = true,
      split = ",",
      description =
          "The evaluation sets: JSON Lines files, directories or globs (quoted: 'evals/*.jsonl'); "
              + "may be given more than once.")
  List<String> against;

  @Option(
      names = "--content",
      paramLabel = "FIELD",
      required = true,
      description = "The documents' text: a JSON Lines string field, by name or JSON Pointer.")
  String content;

  @Option(
      names = "--against-content",
      paramLabel = "FIELD",
      description = "The evaluation sets' text field (default: the same as --content).")
  String againstContent;

  @Option(
      names = "--unit",
      paramLabel = "document|paragraph",
      converter = CorpusOptions.RemovedUnitConverter.class,
      completionCandidates = CorpusOptions.RemovedUnitConverter.class,
      description =
          "What is removed: the whole document (the default) or the paragraph holding the "
              + "n-grams.")
  CorpusSpec.Unit unit;

  @Mixin CorpusOptions corpus;

  @Option(
      names = "--normalize",
      paramLabel = "STEPS",
      description =
          "Token normalisation before hashing, for both sides: nfkc, lower, punct (punctuation "
              + "removed), comma-separated, or none (default: nfkc,lower,punct).")
  String normalize;

  @Option(
      names = {"-p", "--fpp"},
      paramLabel = "P",
      converter = RateConverter.class,
      description =
          "Keep the evaluation sets' n-grams in a Bloom filter at this false-positive rate "
              + "instead of an exact set (a unit may then be removed for n-grams it does not "
              + "share; the summary bounds how often).")
  Double fpp;

  @Option(
      names = {"-n", "--expected"},
      paramLabel = "N",
      converter = CountConverter.class,
      description =
          "With --fpp: the distinct n-grams the filter is sized for; the job stops if the "
              + "evaluation sets hold more (default: a filter that grows).")
  Long expected;

  @Option(
      names = "--seed",
      paramLabel = "S",
      defaultValue = "0",
      description = "Hash seed (default: ${DEFAULT-VALUE}).")
  long seed;

  @Option(
      names = "--state",
      paramLabel = "DIR",
      description =
          "Make the job resumable: checkpoints go to DIR; after a crash, run the same command "
              + "again. Needs -o (or --annotate) and files as inputs. One process per DIR.")
  Path state;

  @Mixin VerifyInputsOption verify;

  @Option(
      names = "--checkpoint-every",
      paramLabel = "N|DURATION",
      description =
          "With --state: checkpoint after N documents and/or after DURATION (10s, 1m); may be "
              + "given twice (default: 100000 documents or 10s).")
  List<String> checkpointEvery = new ArrayList<>();

  @Mixin OutputOptions output;

  @Option(
      names = "--dropped",
      paramLabel = "FILE",
      description =
          "Also write every removed unit: FILE<TAB>LINE<TAB>UNIT<TAB>START<TAB>END<TAB>SCORE"
              + "<TAB>TEXT, the span matched in code points and its text as a JSON string.")
  Path dropped;

  @Mixin BadRecordOptions badRecords;

  @Option(
      names = "--memory",
      paramLabel = "SIZE",
      converter = SizeConverter.class,
      description =
          "The heap the job may use; bin/idem also starts the JVM with a heap of this size "
              + "(default: the JVM's heap limit).")
  long memory;

  @Option(
      names = "--threads",
      paramLabel = "N",
      defaultValue = "0",
      description =
          "Threads that parse documents and hash their n-grams (default 0: all cores but two, "
              + "at least one). Units are judged in input order: the output is the same for "
              + "every N.")
  int threads;

  @Parameters(
      paramLabel = "INPUT",
      arity = "0..*",
      defaultValue = "-",
      description =
          "JSON Lines files, directories (every file below, in path order), globs, or - for "
              + "standard input (not resumable); none: standard input. gzip, zstd, xz and bzip2 "
              + "files are decompressed.")
  List<String> inputs;

  private final Io io;

  DecontaminateCommand(Io io) {
    this.io = io;
  }

  @Override
  public Integer call() throws IOException {
    return new CorpusRun(io, "idem decontaminate", output, badRecords).run(jobSpec());
  }

  private CorpusSpec jobSpec() {
    output.requireOneUseOfStandardOutput(spec.commandLine());
    try {
      if (spec.commandLine().getParseResult().hasMatchedOption("--min-doc-chars")
          && unit != CorpusSpec.Unit.PARAGRAPH) {
        throw new IllegalArgumentException(
            "--min-doc-chars applies to documents that lost paragraphs: give --unit paragraph");
      }
      CorpusSpec.Builder b =
          corpus
              .applyTo(CorpusSpec.builder(CorpusSpec.Mode.DECONTAMINATE, inputs, content))
              .against(against);
      if (againstContent != null) {
        b.againstContent(againstContent);
      }
      if (unit != null) {
        b.unit(unit);
      }
      if (normalize != null) {
        b.normalization(TextNormalization.parse(normalize));
      }
      if (fpp != null) {
        b.fpp(fpp);
      }
      if (expected != null) {
        b.expected(expected);
      }
      CheckpointEvery every = CheckpointEvery.parse(checkpointEvery);
      return b.seed(seed)
          .output(output.file())
          .dropped(dropped)
          .onBadRecord(badRecords.policy)
          .maxRecordBytes(badRecords.maxRecordBytes())
          .threads(CorpusDedupRun.threads(threads))
          .memory(memory > 0 ? memory : Long.MAX_VALUE)
          .state(state)
          .checkpointEvery(every.count(), Math.max(1, every.interval().toMillis()))
          .verifyInputs(verify.verifyInputs)
          .build();
    } catch (IllegalArgumentException e) {
      throw new ParameterException(spec.commandLine(), e.getMessage());
    }
  }
}
