package dev.idem.cli;

import dev.idem.core.filter.FilterType;
import dev.idem.core.window.WindowKind;
import dev.idem.engine.DedupMode;
import dev.idem.engine.ExpectedKeys;
import dev.idem.engine.KeyMode;
import dev.idem.engine.MetricsEndpoint;
import dev.idem.engine.job.DedupJob;
import dev.idem.engine.job.DedupJobSpec;
import dev.idem.engine.job.JobResult;
import dev.idem.engine.job.WindowSpec;
import dev.idem.engine.output.OutputGuard;
import dev.idem.engine.records.BadRecordException;
import dev.idem.engine.records.EventTime;
import dev.idem.engine.records.KeySpec;
import dev.idem.engine.records.RecordFormat;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;
import picocli.CommandLine.TypeConversionException;

/**
 * {@code idem dedup}: the main job. *
 *
 * <p>Why it is long: most of it is picocli's declarations, some forty options with their help text
 * and the examples; what remains turns them into a job spec and names the flag at fault. The job
 * itself is in the engine.
 */
@Command(
    name = "dedup",
    footerHeading = "%nExamples:%n",
    footer = {
      "  # the first event of each id; resumable: after a crash, run the same command",
      "  idem dedup --key id --state st -o clean.jsonl examples/clicks.jsonl",
      "  # whole lines, from standard input to standard output",
      "  idem dedup --whole-line < urls.txt > unique.txt",
      "  # CSV by column name; bad records to bad.csv, why to bad.csv.reasons.tsv",
      "  idem dedup --column url --on-bad-record quarantine=bad.csv -o clean.csv \\",
      "      urls.csv",
      "  # a user's clicks within 10 minutes (of event time, field ts) are one",
      "  idem dedup --key user --window 10m --sliding --time-field ts \\",
      "      -o once.jsonl examples/clicks.jsonl",
      "  # keys larger than memory: to partition files, each judged in a 256 MiB heap",
      "  idem dedup --whole-line --memory 256m --exact-store partitioned \\",
      "      --state st-big -o unique-lines.txt urls.txt",
      "  # repeated paragraphs (boilerplate) removed from documents; resumable",
      "  idem dedup --content text --unit paragraph --min-paragraph-chars 20 \\",
      "      --state st-par -o clean.jsonl --dropped removed.tsv corpus/",
      "  # BFF's rule (80 %% of a paragraph's 13-grams seen before), a 0.1 %% filter",
      "  idem dedup --content text --unit ngram --ngram 13 --threshold 0.8 \\",
      "      --fpp 0.001 -o clean.jsonl corpus/",
      "  # each batch: only the lines no earlier batch had; its keys join hist/",
      "  idem dedup --whole-line --history hist -o day-1.txt urls.txt",
      "  idem dedup --whole-line --history hist -o day-2.txt more-urls.txt"
    },
    mixinStandardHelpOptions = true,
    versionProvider = IdemCommand.Version.class,
    sortOptions = false,
    description = {
      "Write the first record of each key, in input order, byte for byte as read.",
      "A filter answers 'certainly new' for almost every new key; a 'maybe' is confirmed in an "
          + "exact tier (in memory or RocksDB), so no new record is dropped in exact mode. With "
          + "--state DIR the job checkpoints and, after any crash, the same command resumes it: "
          + "the output then equals that of an uninterrupted run, nothing missed, nothing twice.",
      "Parquet inputs (*.parquet, or --format parquet): the first row of each key, whole, in "
          + "Parquet part files in -o DIR/ (one -o FILE.parquet without --state).",
      "With --unit paragraph|ngram and --content FIELD: the parts of documents seen before are "
          + "removed instead, and the documents written with what is left (docs/CORPUS.md).",
      ""
    },
    exitCodeListHeading = "%nExit status:%n",
    exitCodeList = {
      "0:done (or already done: the state says the job is complete)",
      "1:bad input under --on-bad-record fail (after a checkpoint), an unreadable input or "
          + "unwritable output",
      "2:usage error, or a --state that belongs to another job or is in use"
    })
final class DedupCommand implements Callable<Integer> {

  @Spec CommandSpec spec;

  @Mixin RecordOptions record;

  @Option(
      names = "--mode",
      paramLabel = "MODE",
      defaultValue = "exact",
      converter = ChoiceConverter.Mode.class,
      completionCandidates = ChoiceConverter.Mode.class,
      description =
          "exact: every 'maybe' is confirmed, no new record is ever dropped "
              + "(default); approximate: the filter alone decides, a new record is dropped with "
              + "probability at most --fpp, and no exact tier is kept.")
  DedupMode mode;

  @Option(
      names = "--key-mode",
      paramLabel = "KM",
      defaultValue = "fingerprint",
      converter = ChoiceConverter.KeyModes.class,
      completionCandidates = ChoiceConverter.KeyModes.class,
      description =
          "What the exact tier stores: fingerprint (16 bytes/key; two keys are "
              + "confused with probability ~n^2/2^129) or full (the key's bytes, exact). Default: "
              + "${DEFAULT-VALUE}.")
  KeyMode keyMode;

  @Option(
      names = {"-n", "--expected"},
      paramLabel = "N|auto",
      converter = ExpectedKeysConverter.class,
      description =
          "Distinct keys expected: sizes the filter. auto: read the input files once "
              + "first and count them (UltraLogLog; sized for the upper end of its 99 %% interval). "
              + "Not given: a scalable filter grows from a guess made from the input sizes.")
  ExpectedKeys expected = ExpectedKeys.UNKNOWN;

  /** {@code auto}, or a count. */
  static final class ExpectedKeysConverter implements ITypeConverter<ExpectedKeys> {
    @Override
    public ExpectedKeys convert(String value) {
      return value.strip().equalsIgnoreCase("auto")
          ? ExpectedKeys.ESTIMATE
          : ExpectedKeys.of(new CountConverter().convert(value));
    }
  }

  @Option(
      names = {"-p", "--fpp"},
      paramLabel = "P",
      defaultValue = "0.001",
      converter = RateConverter.class,
      description = "The filter's false-positive rate (default: ${DEFAULT-VALUE}).")
  double fpp;

  @Option(
      names = "--filter",
      paramLabel = "TYPE",
      converter = ChoiceConverter.Filter.class,
      completionCandidates = ChoiceConverter.Filter.class,
      description =
          "Filter type: bloom, blocked, partitioned or scalable (default: blocked "
              + "with --expected, scalable without); the deletable and exact structures are not "
              + "tiers here.")
  FilterType filterType;

  @Option(
      names = "--seed",
      paramLabel = "S",
      defaultValue = "0",
      description = "Hash seed (default: ${DEFAULT-VALUE}).")
  long seed;

  @Option(
      names = "--exact-store",
      paramLabel = "WHERE",
      defaultValue = "auto",
      converter = ExactTierOption.Converter.class,
      completionCandidates = ExactTierOption.Converter.class,
      description =
          "auto (memory when the exact set and the job's 32 MiB of working heap fit in "
              + "--memory, with room for the set to double when the key count is guessed from "
              + "the input's size; else partitioned when the inputs are files and nothing but the "
              + "exact set judges; else RocksDB; the rule idem plan sizes with), memory, rocksdb, "
              + "partitioned (the keys go to partition files, each judged in memory, then a "
              + "second read writes the records: for keys larger than memory; inputs must be "
              + "files), or redis://HOST[:PORT][/DB][?prefix=P&ttl=T]: a seen-set shared by "
              + "every worker that names it, marked atomically per key (Redis 7+ with appendonly "
              + "yes; a job stops if the server forgets its marks; no local filter, which could not "
              + "know other workers' keys); with ttl=10m a key repeats only within 10 minutes of "
              + "wall-clock time (default: ${DEFAULT-VALUE}).")
  ExactTierOption exactTier;

  @Option(
      names = "--state",
      paramLabel = "DIR",
      description =
          "Make the job resumable: checkpoints go to DIR; after a crash, run the same "
              + "command again. Needs -o. One process per DIR.")
  Path state;

  @Option(
      names = "--history",
      paramLabel = "DIR",
      description =
          "Dedup against every key that earlier runs over DIR kept, as well as within the "
              + "inputs; this run's kept keys join DIR together with its output. Resumable: after "
              + "a crash, run the same command; run again once complete, it changes nothing. One "
              + "run at a time per DIR (another is refused until the unfinished one is done). "
              + "Needs -o. DIR is a durable set, as the library's and idem serve's (docs/HISTORY.md).")
  Path history;

  @Mixin VerifyInputsOption verify;

  @Option(
      names = "--memory",
      paramLabel = "SIZE",
      converter = SizeConverter.class,
      description =
          "The heap the job may plan for (its exact set, or the partitioned method's "
              + "partitions); bin/idem also starts the JVM with a heap of this size. Default: the "
              + "JVM's heap limit.")
  long memory;

  @Option(
      names = "--tmp",
      paramLabel = "DIR",
      description =
          "Where the partitioned method writes its partition files (about 24 bytes a record) "
              + "when there is no --state; with --state they go in the state directory "
              + "(default: the system temporary directory).")
  Path tmp;

  @Option(
      names = "--threads",
      paramLabel = "N",
      description =
          "Threads that parse records (extract and hash keys, a batch each) and that judge "
              + "them against the exact set in memory (default 0: all cores but two, at least "
              + "one). Files are read on a thread of their own. The "
              + "output is the same for every N; other exact tiers, windows, shards and "
              + "--seen-before judge on one thread.",
      defaultValue = "0")
  int threads;

  @Option(
      names = "--checkpoint-every",
      paramLabel = "N|DURATION",
      description =
          "Checkpoint after N records and/or after DURATION (10s, 1m); may be given "
              + "twice (default: 100000 records or 10s).")
  List<String> checkpointEvery = new ArrayList<>();

  @Mixin OutputOptions output;

  @Option(
      names = "--dropped",
      paramLabel = "FILE",
      description =
          "Also write every removed duplicate: FILE<TAB>LINE<TAB>record; - for standard output "
              + "(then give the records -o FILE).")
  Path dropped;

  /** What {@code --dropped -} writes to: the stream the shell gave, opened by name. */
  private static final Path STANDARD_OUTPUT = Path.of("/dev/stdout");

  @Mixin BadRecordOptions badRecords;

  @Mixin ParquetOptions parquet;

  @Option(
      names = "--metrics-port",
      paramLabel = "PORT",
      description =
          "Serve the job's counters (records, kept, input bytes, warnings) for "
              + "Prometheus at http://ADDRESS:PORT/metrics while it runs (0: any free port, "
              + "printed).")
  Integer metricsPort;

  @Option(
      names = "--metrics-address",
      paramLabel = "ADDRESS",
      defaultValue = "127.0.0.1",
      description =
          "Where --metrics-port listens (default: ${DEFAULT-VALUE}, this machine only; 0.0.0.0 "
              + "for every interface, which lets anyone who can reach it read the counters).")
  String metricsAddress;

  @Option(
      names = "--recent",
      paramLabel = "N",
      defaultValue = "0",
      description =
          "Keep N recently seen fingerprints in a cache in front of the exact tier, "
              + "for streams with hot duplicates (default: off).")
  long recent;

  @Option(
      names = "--rocksdb-cache",
      paramLabel = "SIZE|auto",
      defaultValue = "auto",
      converter = CacheSizeConverter.class,
      description =
          "RocksDB block cache, outside the Java heap. auto (the default): a quarter "
              + "of the maximum heap, at least 64m; confirming a duplicate in a RocksDB exact tier "
              + "is a read of a present key, fast only from the cache.")
  long rocksDbCache;

  @Parameters(
      paramLabel = "INPUT",
      arity = "0..*",
      defaultValue = "-",
      description =
          "Files, directories (every file below, in path order), globs (** for any depth), or - for standard "
              + "input (not resumable); none: standard input, as for sort and uniq. gzip, zstd, xz and "
              + "bzip2 files are decompressed, recognised by their content.")
  List<String> inputs;

  static final class WindowOptions {
    @Option(
        names = "--window",
        paramLabel = "DURATION",
        required = true,
        converter = DurationConverter.class,
        description =
            "Dedup within time windows instead of over all time: a key is a "
                + "duplicate only if seen in the same window (tumbling, aligned to the epoch) or, "
                + "with --sliding, within DURATION of a kept event of it.")
    Duration window;

    @Option(names = "--sliding", description = "Sliding (TTL) windows instead of tumbling.")
    boolean sliding;

    @Option(
        names = "--time-field",
        paramLabel = "FIELD",
        description =
            "Where the event time is: JSON field or pointer, or CSV/TSV column "
                + "(default: processing time, which a resumed job cannot reproduce).")
    String timeField;

    @Option(
        names = "--time-format",
        paramLabel = "FMT",
        defaultValue = "millis",
        converter = ChoiceConverter.TimeFormat.class,
        completionCandidates = ChoiceConverter.TimeFormat.class,
        description = "millis, seconds or iso (default: ${DEFAULT-VALUE}).")
    EventTime timeFormat;

    @Option(
        names = "--max-delay",
        paramLabel = "DURATION",
        defaultValue = "0s",
        converter = LenientDurationConverter.class,
        description =
            "How far out of order events may arrive: the watermark trails the newest "
                + "event time by this (default: ${DEFAULT-VALUE}).")
    Duration maxDelay;

    @Option(
        names = "--allowed-lateness",
        paramLabel = "DURATION",
        defaultValue = "0s",
        converter = LenientDurationConverter.class,
        description =
            "How long a window's state outlives the watermark (default: " + "${DEFAULT-VALUE}).")
    Duration allowedLateness;

    @Option(
        names = "--late",
        paramLabel = "POLICY",
        defaultValue = "drop",
        converter = LatePolicyConverter.class,
        completionCandidates = LatePolicyConverter.class,
        description =
            "Events older than the watermark allows: drop (counted), emit (written "
                + "to the output, counted), or side-output=FILE (default: ${DEFAULT-VALUE}).")
    WindowSpec.LatePolicy late;
  }

  /** {@code drop}, {@code emit} or {@code side-output=FILE}, as the engine parses it. */
  static final class LatePolicyConverter
      implements ITypeConverter<WindowSpec.LatePolicy>, Iterable<String> {

    /** The words for shell completion. */
    @Override
    public Iterator<String> iterator() {
      return List.of("drop", "emit", "side-output=").iterator();
    }

    @Override
    public WindowSpec.LatePolicy convert(String value) {
      try {
        return WindowSpec.latePolicy(value);
      } catch (IllegalArgumentException e) {
        throw new TypeConversionException(e.getMessage());
      }
    }
  }

  @Option(
      names = "--shard",
      paramLabel = "I/N",
      description =
          "Only the keys shard I of N owns (0-based; by consistent hashing of the "
              + "key's fingerprint): N workers reading the same input with I = 0..N-1 together "
              + "dedup it exactly once. With --ring-nodes: the node's name or index.")
  String shard;

  @Mixin ShardOptions shards;

  @Option(
      names = "--seen-before",
      paramLabel = "FILE",
      description =
          "Keys in this exact set count as seen: those that earlier jobs kept, e.g. "
              + "this node's file from 'idem reshard' (or 'idem filter build --type exact').")
  Path seenBefore;

  @Option(
      names = "--unit",
      paramLabel = "paragraph|ngram",
      converter = CorpusOptions.DedupUnitConverter.class,
      completionCandidates = CorpusOptions.DedupUnitConverter.class,
      description =
          "Clean a corpus of --content documents by parts (docs/CORPUS.md): paragraph removes "
              + "every later occurrence of a paragraph from its document; ngram removes a "
              + "paragraph whose n-grams were seen before in at least --threshold of them (BFF's "
              + "rule). The first occurrence in input order stays; the rest of a document is kept "
              + "byte for byte and only its content field is rewritten. Exact (fingerprints in "
              + "memory) unless --fpp is given: then a Bloom filter alone, at that rate, which "
              + "grows (or, with --expected, stops when full rather than pass it).")
  dev.idem.engine.corpus.CorpusSpec.Mode unit;

  @Option(
      names = "--document-threshold",
      paramLabel = "T",
      converter = CorpusOptions.ShareConverter.class,
      description =
          "With --unit ngram: also remove a whole document whose n-grams were seen before in "
              + "at least this share (default: documents are not judged whole).")
  Double documentThreshold;

  @Mixin CorpusOptions corpus;

  @ArgGroup(exclusive = false, heading = "%nTime windows (\"seen in the last W\"):%n")
  WindowOptions windowOptions;

  private final Io io;

  DedupCommand(Io io) {
    this.io = io;
  }

  @Override
  public Integer call() throws IOException {
    if (unit != null) {
      return new CorpusDedupRun(this, io).call();
    }
    CorpusDedupRun.refuseWithoutUnit(this);
    if (metricsPort != null && (metricsPort < 0 || metricsPort > 65535)) {
      throw new ParameterException(
          spec.commandLine(),
          "--metrics-port must be from 0 (any free port) to 65535, got " + metricsPort);
    }
    if (ParquetDedupRun.applies(record.format, inputs)) {
      if (history != null) {
        throw new UserException(
            "--history takes text inputs (lines, JSON Lines, CSV, TSV) for now, not Parquet: "
                + "dedup Parquet against earlier batches with one --state over all of them");
      }
      return new ParquetDedupRun(this, io).call();
    }
    DedupJobSpec jobSpec = jobSpec();
    JobSummary summary = new JobSummary(io, output, jobSpec.rocksDbCacheBytes());
    if (state != null) {
      Signals.whenStopped(() -> summary.stopped(state));
    } else if (history != null) {
      summary.history(history);
      Signals.whenStopped(() -> summary.stopped(history));
    }
    try {
      refuseDestructivePaths(jobSpec);
      JobResult result;
      try (MetricsEndpoint metrics =
          metricsPort == null ? null : summary.metrics().start(metricsAddress, metricsPort)) {
        if (metrics != null && !output.quiet) {
          io.err()
              .println(
                  "idem dedup: metrics at http://"
                      + metricsAddress
                      + ":"
                      + metrics.port()
                      + "/metrics");
        }
        Terminal.sayWhenReadingTheTerminal(io, "idem dedup", inputs, "records");
        result = DedupJob.run(jobSpec, io.in(), io.data(), summary.listener());
      }
      summary.finish(result);
      return 0;
    } catch (BadRecordException e) {
      summary.abandon();
      throw new UserException(e.getMessage());
    } catch (IOException | RuntimeException e) {
      summary.abandon();
      throw e;
    }
  }

  /** Refuses outputs that are inputs, lie in the state directory, or are each other. */
  private void refuseDestructivePaths(DedupJobSpec s) throws IOException {
    OutputGuard guard =
        new OutputGuard()
            .resumable(s.state() != null || s.history() != null)
            .inputs(s.inputs())
            .input("--seen-before " + s.seenBefore(), s.seenBefore())
            .input("--ring-nodes " + shards.ringNodes, shards.ringNodes)
            .stateDirectory("--state " + s.state(), s.state())
            .stateDirectory("--history " + s.history(), s.history());
    if (s.output() == null) {
      guard.standardOutput();
    }
    guard.output("-o " + s.output(), s.output()).output("--dropped " + s.dropped(), s.dropped());
    badRecords.addQuarantineTo(guard);
    badRecords.addQuarantineReasonsTo(guard);
    if (s.window() != null && s.window().late() instanceof WindowSpec.LatePolicy.SideOutput so) {
      guard.output("--late side-output=" + so.file(), so.file());
    }
    guard.summary("--stats-json " + output.statsJson, output.statsFile()).check();
  }

  private WindowSpec windowSpec(RecordFormat format) {
    WindowOptions w = windowOptions;
    if (w == null) {
      return null;
    }
    if (w.timeField == null
        && spec.commandLine().getParseResult().hasMatchedOption("--time-format")) {
      throw new IllegalArgumentException(
          "--time-format says how --time-field is written: give --time-field too (without it, "
              + "windows run on processing time)");
    }
    KeySpec time =
        w.timeField == null
            ? null
            : format == RecordFormat.CSV || format == RecordFormat.TSV
                ? KeySpec.column(w.timeField)
                : KeySpec.jsonField(w.timeField, false);
    return new WindowSpec(
        w.sliding ? WindowKind.SLIDING : WindowKind.TUMBLING,
        w.window,
        time,
        w.timeFormat,
        w.maxDelay,
        w.allowedLateness,
        w.late);
  }

  /** {@code --checkpoint-every}. */
  CheckpointEvery checkpoints() {
    return CheckpointEvery.parse(checkpointEvery);
  }

  private DedupJobSpec jobSpec() throws IOException {
    if (history != null && output.file() == null) {
      throw new ParameterException(
          spec.commandLine(),
          "--history needs -o FILE: standard output cannot be cut back to a checkpoint, so a "
              + "resumed run could repeat records");
    }
    if (state != null && output.file() == null) {
      throw new ParameterException(
          spec.commandLine(),
          "--state needs -o FILE: standard output "
              + "cannot be cut back to a checkpoint, so a resumed job could repeat records");
    }
    output.requireOneUseOfStandardOutput(spec.commandLine());
    if (dropped != null && dropped.toString().equals("-")) {
      if (output.file() == null) {
        throw new ParameterException(
            spec.commandLine(),
            "--dropped - writes the duplicates to standard output, where the records go too: "
                + "give the records -o FILE, or the duplicates --dropped FILE");
      }
      dropped = STANDARD_OUTPUT;
    }
    try {
      KeySpec keySpec = record.keySpec();
      RecordFormat recordFormat = record.format(keySpec, inputs);
      boolean hasHeader = record.header(keySpec, recordFormat);
      if (record.isContent() && keyMode == KeyMode.FULL_KEY) {
        throw new IllegalArgumentException(
            "--content keys are documents: they are compared "
                + "by fingerprint; drop --key-mode full");
      }
      CheckpointEvery every = checkpoints();
      if (recent < 0) {
        throw new IllegalArgumentException("--recent must be 0 (off) or a positive count");
      }
      return DedupJobSpec.builder(inputs)
          .format(recordFormat)
          .key(keySpec)
          .header(hasHeader)
          .normalizer(record.normalizer())
          .mode(mode)
          .keyMode(keyMode)
          .filterType(filterType)
          .expectedKeys(expected)
          .fpp(fpp)
          .seed(seed)
          .exactTier(exactTier.local())
          .state(state)
          .checkpointRecords(every.count())
          .checkpointInterval(every.interval())
          .output(output.file())
          .dropped(dropped)
          .onBadRecord(badRecords.policy)
          .maxRecordBytes(badRecords.maxRecordBytes())
          .recentCacheSize(recent)
          .rocksDbCacheBytes(CacheSizeConverter.resolve(rocksDbCache))
          .window(windowSpec(recordFormat))
          .shard(shards.shard(shard))
          .shared(exactTier.shared())
          .seenBefore(seenBefore)
          .verifyInputs(verify.verifyInputs)
          .threads(threads)
          .memory(memory)
          .tempDirectory(tmp)
          .history(history)
          .build();
    } catch (IllegalArgumentException | TypeConversionException e) {
      throw new ParameterException(spec.commandLine(), e.getMessage());
    }
  }
}
