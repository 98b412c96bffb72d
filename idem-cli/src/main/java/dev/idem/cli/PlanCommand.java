package dev.idem.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import com.fasterxml.jackson.databind.SerializationFeature;
import dev.idem.core.ByteSize;
import dev.idem.engine.JobException;
import dev.idem.engine.estimate.InputSurvey;
import dev.idem.engine.input.Compression;
import dev.idem.engine.neardup.LshBands;
import dev.idem.engine.neardup.NearDupPlan;
import dev.idem.engine.plan.MethodEstimate;
import dev.idem.engine.plan.Planner;
import dev.idem.engine.plan.Planner.Recommendation;
import dev.idem.engine.plan.Workload;
import dev.idem.engine.records.KeySpec;
import dev.idem.engine.records.RecordFormat;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.stream.Collectors;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code idem plan}: which method, how big, and the command that runs it. *
 *
 * <p>Why it is long: picocli's declarations of the workload's options, and two plans (dedup methods
 * and near-dup bands) that share them; the costs are in the engine's {@code Planner} and {@code
 * NearDupPlan}.
 */
@Command(
    name = "plan",
    footerHeading = "%nExamples:%n",
    footer = {
      "  # which method for 2 G distinct keys among 3 G records, in an 8 GiB heap?",
      "  idem plan --records 3G --distinct 2G --memory 8g",
      "  # count an input's records and distinct keys first, then advise",
      "  idem plan --sample examples/clicks.jsonl --key id"
    },
    mixinStandardHelpOptions = true,
    versionProvider = IdemCommand.Version.class,
    sortOptions = false,
    description = {
      "Choose a dedup method and size it: from the records, distinct keys, memory "
          + "and error you give (or from a sample of the input), a table of every method idem "
          + "offers with its memory, disk, false-positive rate and exact-tier lookups, a "
          + "recommendation with its reason, and the command line that runs it.",
      ""
    },
    exitCodeListHeading = "%nExit status:%n",
    exitCodeList = {
      "0:a plan was printed",
      "1:an input could not be read",
      "2:usage error (missing or impossible numbers)"
    })
final class PlanCommand implements Callable<Integer> {

  @Option(
      names = "--records",
      paramLabel = "N",
      converter = CountConverter.class,
      description = "Records in the input (default: the distinct keys, or from --sample).")
  Long records;

  @Option(
      names = "--distinct",
      paramLabel = "N",
      converter = CountConverter.class,
      description =
          "Distinct keys: what filters are sized for (default: estimated by "
              + "--sample; without it, --records, as if every record were new).")
  Long distinct;

  @Option(
      names = "--memory",
      paramLabel = "SIZE",
      converter = SizeConverter.class,
      description =
          "The memory budget, e.g. 512m or 4g: the Java heap the recommended command may use "
              + "(bin/idem sets the JVM's heap limit from the --memory of dedup, sort-dedup and "
              + "near-dup; IDEM_JAVA_OPTS=-Xmx... overrides it); a job's memory counts its "
              + "working heap, a structure's does not, RocksDB's block cache is outside the heap "
              + "(default: none: everything fits).")
  Long memory;

  static final class Error {
    @Option(
        names = "--fpp",
        paramLabel = "P",
        converter = RateConverter.class,
        description = "Accept losing a new key with probability P (approximate methods).")
    Double fpp;

    @Option(names = "--exact", description = "No new key may be lost (the default).")
    boolean exact;
  }

  @ArgGroup(exclusive = true, multiplicity = "0..1")
  Error error;

  @Option(names = "--stream", description = "An endless stream: dedup within --window.")
  boolean stream;

  @Option(
      names = "--window",
      paramLabel = "DURATION",
      converter = DurationConverter.class,
      description = "The stream's dedup window (10m, 1h, ...).")
  Duration window;

  @Option(
      names = "--keys-per-window",
      paramLabel = "N",
      converter = CountConverter.class,
      description = "Distinct keys in one window, to size a windowed job.")
  Long keysPerWindow;

  @Option(names = "--deletes", description = "Keys must be removable later.")
  boolean deletes;

  @Option(
      names = "--shared-state",
      paramLabel = "redis|none",
      defaultValue = "none",
      converter = ChoiceConverter.SharedStates.class,
      completionCandidates = ChoiceConverter.SharedStates.class,
      description = "Whether workers must share one state (default: ${DEFAULT-VALUE}).")
  SharedState sharedState;

  /** {@code --shared-state}: whether workers must share one state, and where. */
  enum SharedState {
    REDIS,
    NONE
  }

  static final class Sample {
    @Option(
        names = "--sample",
        paramLabel = "INPUT",
        arity = "1..*",
        required = true,
        description =
            "Read these inputs (files, directories, globs) to count records and "
                + "estimate distinct keys.")
    List<String> inputs;

    @Option(
        names = "--sample-bytes",
        paramLabel = "SIZE",
        converter = SizeConverter.class,
        description =
            "Read only about this much of the inputs (as stored; compressed files are read "
                + "whole) and extrapolate by bytes (default: all).")
    Long sampleBytes;

    @ArgGroup(exclusive = true, multiplicity = "1", heading = "%nKey of the sample:%n")
    RecordOptions.KeyOptions key;

    @Option(
        names = "--format",
        paramLabel = "FORMAT",
        converter = ChoiceConverter.Format.class,
        completionCandidates = ChoiceConverter.Format.class,
        description = "As for idem dedup.")
    RecordFormat format;

    @Option(names = "--header", negatable = true, description = "As for idem dedup.")
    Boolean header;

    @Option(
        names = "--normalize",
        paramLabel = "STEPS",
        defaultValue = "identity",
        description = "As for idem dedup.")
    String normalize;

    RecordOptions asRecordOptions() {
      RecordOptions r = new RecordOptions();
      r.key = key;
      r.format = format;
      r.header = header;
      r.normalize = normalize;
      return r;
    }
  }

  @ArgGroup(
      exclusive = false,
      multiplicity = "0..1",
      heading = "%nSample (estimate the numbers from the input):%n")
  Sample sample;

  static final class NearDup {
    @Option(
        names = "--near-dup",
        required = true,
        description =
            "Plan idem near-dup instead: its bands and rows, the S-curve at a few similarities, "
                + "its memory (it holds every document's signature) and its command.")
    boolean nearDup;

    @Option(
        names = "--threshold",
        paramLabel = "T",
        defaultValue = "0.8",
        converter = RateConverter.class,
        description = "As for idem near-dup (default: ${DEFAULT-VALUE}).")
    double threshold;

    @Option(
        names = "--num-perm",
        paramLabel = "N",
        description = "As for idem near-dup (default: 128, or bands × rows when they are given).")
    Integer numPerm;

    @Option(
        names = "--bands",
        paramLabel = "B",
        description = "As for idem near-dup, with --rows (default: chosen from --threshold).")
    Integer bands;

    @Option(names = "--rows", paramLabel = "R", description = "As for idem near-dup, with --bands.")
    Integer rows;

    @Option(names = "--verify", description = "As for idem near-dup: also holds the shingles.")
    boolean verify;

    @Option(
        names = "--words-per-document",
        paramLabel = "N",
        description =
            "Mean words per document, for --verify (default: the sample's mean content bytes / 6, "
                + "else 500).")
    Double words;
  }

  @ArgGroup(
      exclusive = false,
      multiplicity = "0..1",
      heading = "%nNear-duplicate documents (idem near-dup):%n")
  NearDup nearDup;

  @Option(names = "--json", description = "Print one JSON object instead of the table.")
  boolean json;

  @Spec CommandSpec spec;

  private final Io io;

  PlanCommand(Io io) {
    this.io = io;
  }

  @Override
  public Integer call() throws IOException {
    InputSurvey.Result survey = sample == null ? null : survey();
    if (nearDup != null) {
      return planNearDup(survey);
    }
    Workload w = workload(survey);
    List<MethodEstimate> rows = Planner.methods(w);
    Recommendation rec = Planner.recommend(w, rows);
    String command = RecommendedCommand.of(rec.run(), keyOptions(), inputs(), output());
    if (json) {
      io.out()
          .println(
              new ObjectMapper()
                  .enable(SerializationFeature.INDENT_OUTPUT)
                  .setPropertyNamingStrategy(PropertyNamingStrategies.SNAKE_CASE)
                  .writeValueAsString(
                      Map.of(
                          "workload",
                          w,
                          "sample",
                          survey == null ? Map.of() : survey,
                          "methods",
                          rows,
                          "recommendation",
                          recommendation(rec, command))));
    } else {
      PlanReport.print(
          io.out(), w, survey, sample == null ? null : sample.inputs, rows, rec, command);
    }
    return 0;
  }

  /** The recommendation as {@code --json} gives it: the method, why, and its command line. */
  private static Map<String, String> recommendation(Recommendation rec, String command) {
    Map<String, String> m = new java.util.LinkedHashMap<>();
    m.put("method", rec.method());
    m.put("reason", rec.reason());
    m.put("command", command);
    return m;
  }

  /** {@code --near-dup}: the bands, the S-curve, the memory and the command. */
  private int planNearDup(InputSurvey.Result survey) throws IOException {
    long documents = records != null ? records : survey != null ? survey.recordsInWhole() : -1;
    if (documents < 0) {
      throw usage(
          "give the documents (--records N) or an input to count them in (--sample INPUT... "
              + "--content FIELD)");
    }
    int numPerm;
    LshBands bands;
    try {
      numPerm = LshBands.permutations(nearDup.numPerm, nearDup.bands, nearDup.rows);
      bands = LshBands.fromOptions(nearDup.bands, nearDup.rows, numPerm, nearDup.threshold);
    } catch (IllegalArgumentException e) {
      throw usage(e.getMessage());
    }
    double words =
        nearDup.words != null
            ? nearDup.words
            : survey != null && survey.meanKeyBytes() > 0 ? survey.meanKeyBytes() / 6 : 500;
    NearDupPlan plan =
        NearDupPlan.of(documents, nearDup.threshold, numPerm, bands, nearDup.verify, words);
    String field =
        sample != null && sample.key.content != null
            ? "--content " + sample.key.content
            : sample != null && sample.key.wholeLine ? "--whole-line" : "--content FIELD";
    String command =
        "idem near-dup "
            + field
            + " --threshold "
            + nearDup.threshold
            + (nearDup.numPerm != null ? " --num-perm " + numPerm : "")
            + (nearDup.bands != null ? " --bands " + bands.bands() + " --rows " + bands.rows() : "")
            + (nearDup.verify ? " --verify" : "")
            + (memory != null ? " --memory " + RecommendedCommand.size(memory) : "")
            + " --state STATE -o OUT "
            + (sample != null ? String.join(" ", sample.inputs) : "INPUT...");
    boolean fits = memory == null || plan.documentsInMemory(memory) == documents;
    if (json) {
      Map<String, Object> m = new java.util.LinkedHashMap<>();
      m.put("documents", documents);
      m.put("threshold", nearDup.threshold);
      m.put("num_perm", numPerm);
      m.put("bands", bands.bands());
      m.put("rows", bands.rows());
      m.put("s_curve_half_point", bands.halfPoint());
      m.put("bytes_per_document", plan.bytesPerDocument());
      m.put("memory_bytes", plan.totalBytes());
      m.put("fits", fits);
      if (memory != null) {
        m.put("documents_in_memory", plan.documentsInMemory(memory));
        m.put("spilled_bytes", plan.spilledBytes(memory));
      }
      m.put("command", command);
      io.out()
          .println(
              new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT).writeValueAsString(m));
      return 0;
    }
    java.io.PrintStream out = io.out();
    out.printf(
        java.util.Locale.ROOT,
        "idem near-dup for %,d documents at threshold %s:%n",
        documents,
        nearDup.threshold);
    StringBuilder curve = new StringBuilder();
    for (double s : new double[] {0.5, 0.7, 0.8, 0.85, 0.9, 0.95}) {
      curve.append(String.format(java.util.Locale.ROOT, ", %.3f at %.2f", bands.probability(s), s));
    }
    PlanReport.wrap(
        out,
        String.format(
            java.util.Locale.ROOT,
            "  LSH %d bands × %d rows of %d permutations: P(candidate)%s (50 %% at s = %.3f)",
            bands.bands(),
            bands.rows(),
            numPerm,
            curve,
            bands.halfPoint()),
        "    ");
    PlanReport.wrap(
        out,
        String.format(
            java.util.Locale.ROOT,
            "  memory: about %,d bytes a document%s, %s in all%s",
            plan.bytesPerDocument(),
            nearDup.verify
                ? String.format(java.util.Locale.ROOT, " (%.0f words of shingles included)", words)
                : "",
            ByteSize.format(plan.totalBytes()),
            memory == null
                ? ""
                : fits
                    ? "; fits in --memory " + ByteSize.format(memory)
                    : String.format(
                        java.util.Locale.ROOT,
                        "; does NOT fit in --memory %s: judging holds the first %,d documents' "
                            + "tables in memory and the other %,d documents' in RocksDB in --tmp "
                            + "(about %s on disk; each of their lookups is a read)",
                        ByteSize.format(memory),
                        plan.documentsInMemory(memory),
                        documents - plan.documentsInMemory(memory),
                        ByteSize.format(plan.spilledBytes(memory)))),
        "    ");
    out.println("  command:");
    out.println("  " + command);
    return 0;
  }

  private InputSurvey.Result survey() throws IOException {
    RecordOptions r = sample.asRecordOptions();
    try {
      KeySpec keySpec = r.keySpec();
      RecordFormat format = r.format(keySpec, sample.inputs);
      return InputSurvey.run(
          sample.inputs,
          format,
          keySpec,
          r.header(keySpec, format),
          r.normalizer(),
          BadRecordOptions.DEFAULT_MAX_RECORD_BYTES,
          sample.sampleBytes == null ? Long.MAX_VALUE : sample.sampleBytes);
    } catch (JobException e) {
      throw new UserException(e.getMessage());
    } catch (IllegalArgumentException e) {
      throw usage(e.getMessage());
    }
  }

  private Workload workload(InputSurvey.Result survey) {
    if (window != null && window.isZero()) {
      throw usage("--window must be longer than 0");
    }
    if (stream && window == null) {
      throw usage("--stream needs --window DURATION: the time within which a key repeats");
    }
    if (keysPerWindow != null && window == null) {
      throw usage("--keys-per-window needs --window");
    }
    long n;
    long recordCount;
    boolean estimated = false;
    if (distinct != null) {
      n = distinct;
    } else if (survey != null) {
      n = Math.max(1, (long) Math.ceil(survey.whole().high()));
      estimated = true;
    } else if (records != null) {
      n = records;
    } else if (window != null && keysPerWindow != null) {
      n = keysPerWindow;
    } else {
      throw usage(
          "give the distinct keys (--distinct N), the records (--records N), or an "
              + "input to estimate them from (--sample INPUT... with --key/--column/--whole-line)");
    }
    recordCount = records != null ? records : survey != null ? survey.recordsInWhole() : n;
    if (recordCount < n) {
      if (!estimated) {
        throw usage(
            "--records ("
                + recordCount
                + ") cannot be fewer than --distinct ("
                + n
                + "): every distinct key is in a record");
      }
      // the estimate's upper end passes the records when (nearly) every key is distinct: there
      // cannot be more distinct keys than records
      n = Math.max(1, recordCount);
      recordCount = n;
    }
    double keyBytes = survey != null && survey.meanKeyBytes() > 0 ? survey.meanKeyBytes() : 36;
    long inputBytes = survey != null ? survey.recordBytesInWhole() : 0;
    double fpp = error != null && error.fpp != null ? error.fpp : 0;
    try {
      return new Workload(
          recordCount,
          n,
          memory == null ? 0 : memory,
          fpp,
          window,
          keysPerWindow == null ? 0 : keysPerWindow,
          deletes,
          sharedState == SharedState.REDIS,
          keyBytes,
          inputBytes);
    } catch (IllegalArgumentException e) {
      throw usage(e.getMessage());
    }
  }

  /** The sample's key options as a command line takes them, or a placeholder. */
  private String keyOptions() {
    if (sample == null) {
      return "--key FIELD";
    }
    RecordOptions.KeyOptions k = sample.key;
    String key =
        k.jsonKey != null
            ? "--key " + quote(k.jsonKey)
            : k.column != null
                ? "--column " + quote(k.column)
                : k.content != null ? "--content " + quote(k.content) : "--whole-line";
    return key
        + (sample.format != null ? " --format " + sample.format.displayName() : "")
        + (sample.header != null ? (sample.header ? " --header" : " --no-header") : "")
        + (sample.normalize.equals("identity") ? "" : " --normalize " + quote(sample.normalize));
  }

  private String inputs() {
    return sample == null
        ? "INPUT..."
        : sample.inputs.stream().map(PlanCommand::quote).collect(Collectors.joining(" "));
  }

  /** An output name in the sample's format: deduped.jsonl, deduped.csv, ... */
  private String output() {
    if (sample == null) {
      return "OUT";
    }
    String first = Compression.withoutSuffix(sample.inputs.get(0));
    int dot = first.lastIndexOf('.');
    String ext = dot > first.lastIndexOf('/') && dot >= 0 ? first.substring(dot) : "";
    return "deduped" + (ext.matches("\\.[A-Za-z0-9]{1,5}") ? ext : "");
  }

  /** Quotes a shell word when it needs it. */
  static String quote(String word) {
    return word.matches("[A-Za-z0-9_./=:,@%+-]+") ? word : "'" + word.replace("'", "'\\''") + "'";
  }

  private ParameterException usage(String message) {
    return new ParameterException(spec.commandLine(), message);
  }
}
