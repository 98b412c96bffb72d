package dev.idem.cli;

import dev.idem.engine.neardup.LshBands;
import dev.idem.engine.neardup.NearDupJob;
import dev.idem.engine.neardup.NearDupPlan;
import dev.idem.engine.neardup.NearDupResult;
import dev.idem.engine.neardup.NearDupSpec;
import dev.idem.engine.neardup.TextNormalization;
import dev.idem.engine.neardup.Tokenizer;
import dev.idem.engine.output.OutputGuard;
import dev.idem.engine.records.BadRecordException;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code idem near-dup}: removes near-duplicate documents with MinHash LSH. */
@Command(
    name = "near-dup",
    footerHeading = "%nExamples:%n",
    footer = {
      "  # drop articles at least 80 %% similar (word 5-grams) to an earlier one",
      "  idem near-dup --content text --verify --clusters groups.tsv \\",
      "      -o unique.jsonl examples/articles.jsonl",
      "  # the memory and the bands for 100 M documents",
      "  idem plan --near-dup --records 100M --verify"
    },
    mixinStandardHelpOptions = true,
    versionProvider = IdemCommand.Version.class,
    sortOptions = false,
    description = {
      "Write the first document of each cluster of near-duplicates, in input order, byte for "
          + "byte as read (docs/NEAR_DUP.md).",
      "Documents with the same content (byte for byte) are exact duplicates and are removed "
          + "first. The others are cut into shingles (--ngram words or characters, after "
          + "--normalize), signed with --num-perm MinHash permutations and banded into LSH "
          + "buckets; a document and every earlier document sharing a bucket with it are a "
          + "candidate pair, accepted when their similarity is at least --threshold (the exact "
          + "Jaccard similarity of their shingle sets with --verify, else the MinHash estimate). "
          + "Clusters are the connected groups of accepted pairs, and the first document of each "
          + "survives. The inputs are read twice (standard input is kept in --tmp for that), "
          + "once with --streaming. Signatures and band tables are held in memory up to "
          + "--memory; the later documents' go to RocksDB in --tmp, with the same output.",
      ""
    },
    exitCodeListHeading = "%nExit status:%n",
    exitCodeList = {
      "0:done (or already done: the state says the job is complete)",
      "1:bad input under --on-bad-record fail (before any output is written), an unreadable "
          + "input or unwritable output",
      "2:usage error, a --state that belongs to another job or is in use, or inputs that "
          + "changed between the two reads"
    })
final class NearDupCommand implements Callable<Integer> {

  @Spec CommandSpec spec;

  @Mixin VerifyInputsOption verifyInputs;

  static final class ContentOptions {
    @Option(
        names = "--content",
        paramLabel = "FIELD",
        description =
            "JSON Lines: the document is the text of this string field (name or pointer).")
    String field;

    @Option(names = "--whole-line", description = "The document is the whole line.")
    boolean wholeLine;
  }

  @ArgGroup(exclusive = true, multiplicity = "1", heading = "%nDocument (exactly one):%n")
  ContentOptions content;

  @Option(
      names = "--ngram",
      paramLabel = "N",
      defaultValue = "5",
      description =
          "Tokens per shingle (default: ${DEFAULT-VALUE}). A document with fewer tokens is one "
              + "shingle of all of them; one with none is never a near-duplicate.")
  int ngram;

  @Option(
      names = "--tokenizer",
      paramLabel = "words|chars",
      defaultValue = "words",
      converter = TokenizerConverter.class,
      completionCandidates = TokenizerConverter.class,
      description =
          "words: tokens are runs between white space; chars: characters, white space "
              + "read as one space (default: ${DEFAULT-VALUE}).")
  Tokenizer tokenizer;

  /** {@code --tokenizer}. */
  static final class TokenizerConverter extends ChoiceConverter<Tokenizer> {
    TokenizerConverter() {
      super(Tokenizer.values());
    }
  }

  @Option(
      names = "--normalize",
      paramLabel = "STEPS",
      defaultValue = "nfkc,lower,punct",
      description =
          "Text normalisation before shingling: nfkc, lower, punct (punctuation removed), "
              + "comma-separated, or none (default: ${DEFAULT-VALUE}). Exact duplicates are "
              + "judged on the content as read.")
  String normalize;

  @Option(
      names = "--threshold",
      paramLabel = "T",
      defaultValue = "0.8",
      converter = RateConverter.class,
      description =
          "Jaccard similarity at or above which two documents are near-duplicates "
              + "(default: ${DEFAULT-VALUE}).")
  double threshold;

  @Option(
      names = "--num-perm",
      paramLabel = "N",
      description =
          "MinHash permutations per signature (default: 128, or bands × rows when they are given).")
  Integer numPerm;

  @Option(
      names = "--bands",
      paramLabel = "B",
      description =
          "LSH bands; with --rows. Default: the B and R with B × R ≤ --num-perm that minimise "
              + "the S-curve's false-positive and false-negative areas around --threshold.")
  Integer bands;

  @Option(names = "--rows", paramLabel = "R", description = "MinHash rows per band; with --bands.")
  Integer rows;

  @Option(
      names = "--verify",
      description =
          "Accept a candidate pair only when the exact Jaccard similarity of its shingle "
              + "sets is at least --threshold, so no pair below it is ever clustered (holds every "
              + "document's shingles in memory). Without it the MinHash estimate decides.")
  boolean verify;

  @Option(
      names = "--streaming",
      description =
          "One read: write each document as soon as it is judged against the earlier ones, "
              + "removed when it is similar to one of them (for endless input, and standard input "
              + "without a temporary copy). A document joining two earlier groups does not remove "
              + "the later group's first, as the batch plan does; --clusters lists removed "
              + "documents only.")
  boolean streaming;

  @Option(
      names = "--seed",
      paramLabel = "S",
      defaultValue = "0",
      description = "Chooses the MinHash permutations (default: ${DEFAULT-VALUE}).")
  long seed;

  @Option(
      names = "--state",
      paramLabel = "DIR",
      description =
          "Make the job resumable: its judgement and checkpoints go to DIR; after a crash, run "
              + "the same command again. A job killed while judging judges again from the start; "
              + "one killed while writing resumes at its last checkpoint. Needs -o and files as "
              + "inputs. One process per DIR.")
  Path state;

  @Option(
      names = "--checkpoint-every",
      paramLabel = "N|DURATION",
      description =
          "With --state: checkpoint the writing after N documents and/or after DURATION (10s, "
              + "1m); may be given twice (default: 100000 documents or 10s).")
  List<String> checkpointEvery = new java.util.ArrayList<>();

  @Mixin OutputOptions output;

  @Option(
      names = "--dropped",
      paramLabel = "FILE",
      description =
          "Also write every removed document: FILE<TAB>LINE<TAB>record; - for standard output "
              + "(then give the records -o FILE).")
  Path dropped;

  @Option(
      names = "--clusters",
      paramLabel = "FILE",
      description =
          "Write each document of a cluster of two or more, as tab-separated lines under a "
              + "header: document (0-based position among the documents), cluster (the "
              + "survivor's position), similarity to the survivor, file, line.")
  Path clusters;

  @Mixin BadRecordOptions badRecords;

  @Option(
      names = "--tmp",
      paramLabel = "DIR",
      description =
          "Where standard input is kept for the second read, and judging's tables past "
              + "--memory (default: the system temporary directory).")
  Path tmp;

  @Option(
      names = "--memory",
      paramLabel = "SIZE",
      converter = SizeConverter.class,
      description =
          "The heap the job may use; bin/idem also starts the JVM with a heap of this size. "
              + "Judging holds signatures, band tables, shingle sets (--verify) and fingerprints "
              + "in three quarters of it less 64 MiB; the later documents' go to RocksDB in "
              + "--tmp (the output is the same). Default: the JVM's heap limit.")
  long memory;

  @Option(
      names = "--threads",
      paramLabel = "N",
      defaultValue = "0",
      description =
          "Threads that shingle and sign documents, a share of each batch (default 0: one per "
              + "core). Documents are then judged in input order on one thread: the output is the "
              + "same for every N.")
  int threads;

  @Parameters(
      paramLabel = "INPUT",
      arity = "0..*",
      defaultValue = "-",
      description =
          "Files, directories (every file below, in path order), globs (** for any depth), or - "
              + "for standard input; none: standard input. gzip, zstd, xz and bzip2 files are "
              + "decompressed, recognised by their content.")
  List<String> inputs;

  /** What {@code --dropped -} writes to: the stream the shell gave, opened by name. */
  private static final Path STANDARD_OUTPUT = Path.of("/dev/stdout");

  private final Io io;

  NearDupCommand(Io io) {
    this.io = io;
  }

  @Override
  public Integer call() throws IOException {
    NearDupSpec jobSpec = jobSpec();
    NearDupSummary summary = new NearDupSummary(io, output);
    if (jobSpec.state() != null) {
      Signals.whenStopped(
          () -> System.lineSeparator() + Signals.resumable("idem near-dup", jobSpec.state(), ""));
    }
    try {
      refuseDestructivePaths(jobSpec);
      Terminal.sayWhenReadingTheTerminal(io, "idem near-dup", inputs, "documents");
      NearDupResult result = NearDupJob.run(jobSpec, io.in(), io.data(), summary.listener());
      summary.finish(result, jobSpec);
      return 0;
    } catch (BadRecordException e) {
      throw new UserException(e.getMessage());
    }
  }

  /** Refuses outputs that are inputs or each other. */
  private void refuseDestructivePaths(NearDupSpec s) throws IOException {
    OutputGuard guard =
        new OutputGuard()
            .resumable(s.state() != null)
            .inputs(s.inputs())
            .stateDirectory("--state " + s.state(), s.state());
    if (s.output() == null) {
      guard.standardOutput();
    }
    guard
        .output("-o " + s.output(), s.output())
        .output("--dropped " + s.dropped(), s.dropped())
        .output("--clusters " + s.clusters(), s.clusters());
    badRecords.addQuarantineTo(guard);
    guard.summary("--stats-json " + output.statsJson, output.statsFile()).check();
  }

  /** The job the options ask for; a usage error for options the spec refuses. */
  NearDupSpec jobSpec() {
    output.requireOneUseOfStandardOutput(spec.commandLine());
    try {
      if (dropped != null && dropped.toString().equals("-")) {
        if (output.file() == null) {
          throw new IllegalArgumentException(
              "--dropped - writes the removed documents to standard output, where the records "
                  + "go too: give the records -o FILE, or the removed ones --dropped FILE");
        }
        dropped = STANDARD_OUTPUT;
      }
      int perms = LshBands.permutations(numPerm, bands, rows);
      CheckpointEvery every = CheckpointEvery.parse(checkpointEvery);
      return NearDupSpec.builder(inputs, content.field)
          .tokenizer(tokenizer)
          .ngram(ngram)
          .normalization(TextNormalization.parse(normalize))
          .threshold(threshold)
          .numPerm(perms)
          .bands(LshBands.fromOptions(bands, rows, perms, threshold))
          .verify(verify)
          .streaming(streaming)
          .seed(seed)
          .output(output.file())
          .dropped(dropped)
          .clusters(clusters)
          .onBadRecord(badRecords.policy)
          .maxRecordBytes(badRecords.maxRecordBytes())
          .tmp(tmp)
          .memory(NearDupPlan.judgingBudget(memory > 0 ? memory : Runtime.getRuntime().maxMemory()))
          .threads(threads == 0 ? Runtime.getRuntime().availableProcessors() : threads)
          .state(state)
          .checkpointDocuments(every.count())
          .checkpointMillis(every.interval().toMillis())
          .verifyInputs(verifyInputs.verifyInputs)
          .build();
    } catch (IllegalArgumentException e) {
      throw new ParameterException(spec.commandLine(), e.getMessage());
    }
  }
}
