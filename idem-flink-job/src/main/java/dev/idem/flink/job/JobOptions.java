package dev.idem.flink.job;

import java.time.Duration;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.Option;

/**
 * The job's command line. {@link #parse} checks that the options fit together and says, naming the
 * option, what to change when they do not.
 */
@Command(
    name = "idem-flink-job",
    description =
        "Deduplicates JSON records from Kafka or files on Flink, exactly once: the first record of"
            + " each key passes, byte for byte.",
    sortOptions = false)
final class JobOptions {

  enum Mode {
    EXACT,
    APPROXIMATE,
    WINDOW
  }

  @Option(
      names = "--source",
      required = true,
      paramLabel = "kafka://BROKERS/TOPIC|file://DIR",
      description =
          "Where records come from: a Kafka topic (one JSON record a message) or a "
              + "directory of JSON Lines files (read once).")
  String source;

  @Option(
      names = "--sink",
      required = true,
      paramLabel = "kafka://BROKERS/TOPIC|file://DIR",
      description =
          "Where kept records go: a Kafka topic (transactions, exactly once for "
              + "read_committed consumers) or a directory (part files committed on checkpoints).")
  String sink;

  @Option(
      names = "--key",
      required = true,
      paramLabel = "FIELD|/POINTER",
      description = "The key: a top-level field, or a JSON Pointer such as /meta/url.")
  String key;

  @Option(
      names = "--mode",
      defaultValue = "exact",
      paramLabel = "exact|approximate|window",
      converter = ModeConverter.class,
      description =
          "exact (default): every key once, ever; approximate: the filter alone, a new "
              + "key dropped with probability at most --fpp; window: once per --window of event time.")
  Mode mode;

  @Option(
      names = "--expected-keys",
      paramLabel = "N",
      description =
          "Distinct keys the job will see (exact and approximate modes): sizes the "
              + "filters; a rough guess is fine.")
  Long expectedKeys;

  @Option(
      names = "--fpp",
      paramLabel = "P",
      description =
          "The filter's false-positive rate: exact mode, the share of new keys that "
              + "cost a state read (default 0.01); approximate mode, the share of new keys dropped.")
  Double fpp;

  @Option(
      names = "--window",
      paramLabel = "DURATION",
      converter = DurationConverter.class,
      description = "Window mode: the window's size, e.g. 10m (tumbling unless --sliding).")
  Duration window;

  @Option(names = "--sliding", description = "Window mode: sliding (TTL) windows.")
  boolean sliding;

  @Option(
      names = "--time-field",
      paramLabel = "FIELD|/POINTER",
      description = "Window mode: the event time, epoch milliseconds or an ISO-8601 instant.")
  String timeField;

  @Option(
      names = "--max-delay",
      paramLabel = "DURATION",
      converter = DurationConverter.class,
      description = "Window mode: how far out of order records may arrive (default 0s).")
  Duration maxDelay;

  @Option(
      names = "--allowed-lateness",
      paramLabel = "DURATION",
      converter = DurationConverter.class,
      description = "Window mode: how long a window's state outlives the watermark (default 0s).")
  Duration allowedLateness;

  @Option(
      names = "--late-topic",
      paramLabel = "TOPIC",
      description =
          "Window mode with a Kafka sink: late records go to this topic (on the sink's "
              + "brokers, exactly once) instead of being counted and dropped.")
  String lateTopic;

  @Option(
      names = "--checkpoint-interval",
      defaultValue = "10s",
      paramLabel = "DURATION",
      converter = DurationConverter.class,
      description =
          "How often the job checkpoints, and so how often output is committed "
              + "(default: ${DEFAULT-VALUE}).")
  Duration checkpointInterval;

  @Option(
      names = "--group-id",
      defaultValue = "idem-dedup",
      paramLabel = "ID",
      description =
          "The Kafka source's consumer group, where offsets are committed "
              + "(default: ${DEFAULT-VALUE}).")
  String groupId;

  @Option(
      names = "--transactional-id-prefix",
      paramLabel = "PREFIX",
      description =
          "The Kafka sink's transactional id prefix, unique to this job "
              + "(default: idem-<sink topic>).")
  String transactionalIdPrefix;

  @Option(
      names = "--parallelism",
      paramLabel = "N",
      description = "The job's parallelism (default: the cluster's).")
  Integer parallelism;

  @Option(
      names = {"-h", "--help"},
      usageHelp = true,
      description = "Show this help.")
  boolean help;

  Endpoint sourceEndpoint;
  Endpoint sinkEndpoint;

  /**
   * The options in {@code args}, checked.
   *
   * @throws IllegalArgumentException naming the option at fault and what to change
   */
  static JobOptions parse(String... args) {
    JobOptions options = new JobOptions();
    CommandLine line = new CommandLine(options).setCaseInsensitiveEnumValuesAllowed(true);
    try {
      line.parseArgs(args);
    } catch (CommandLine.ParameterException e) {
      throw new IllegalArgumentException(e.getMessage() + " (--help lists the options)", e);
    }
    if (options.help) {
      return options;
    }
    options.check();
    return options;
  }

  static String usage() {
    return new CommandLine(new JobOptions()).getUsageMessage();
  }

  private void check() {
    sourceEndpoint = Endpoint.parse("--source", source);
    sinkEndpoint = Endpoint.parse("--sink", sink);
    if (key.isBlank()) {
      throw new IllegalArgumentException("--key is empty: give a field name or a JSON Pointer");
    }
    if (fpp != null && !(fpp > 0 && fpp < 1)) {
      throw new IllegalArgumentException(
          "--fpp " + fpp + ": give a rate between 0 and 1 (exclusive); 0.01 (1 %) is common");
    }
    positive("--checkpoint-interval", checkpointInterval);
    if (parallelism != null && parallelism < 1) {
      throw new IllegalArgumentException("--parallelism " + parallelism + ": give 1 or more");
    }
    if (mode == Mode.WINDOW) {
      checkWindow();
    } else {
      checkFilterMode();
    }
    if (lateTopic != null && !sinkEndpoint.isKafka()) {
      throw new IllegalArgumentException(
          "--late-topic needs a Kafka --sink (the late topic is on its brokers); drop "
              + "--late-topic, and late records are counted (idem.late) and dropped");
    }
    if (transactionalIdPrefix != null && !sinkEndpoint.isKafka()) {
      throw new IllegalArgumentException(
          "--transactional-id-prefix applies to a Kafka --sink; drop it for " + sink);
    }
    if (!sourceEndpoint.isKafka() && !"idem-dedup".equals(groupId)) {
      throw new IllegalArgumentException(
          "--group-id applies to a Kafka --source; drop it for " + source);
    }
  }

  private void checkWindow() {
    if (window == null) {
      throw new IllegalArgumentException(
          "--mode window needs --window DURATION (e.g. --window 10m), the window's size");
    }
    positive("--window", window);
    if (timeField == null) {
      throw new IllegalArgumentException(
          "--mode window needs --time-field FIELD: the event time of each record (epoch "
              + "milliseconds or an ISO-8601 instant); windows of processing time are not "
              + "reproducible after a restart");
    }
    notNegative("--max-delay", maxDelay);
    notNegative("--allowed-lateness", allowedLateness);
    if (expectedKeys != null || fpp != null) {
      throw new IllegalArgumentException(
          (expectedKeys != null ? "--expected-keys" : "--fpp")
              + " sizes a filter, which --mode window does not use (its state follows the open "
              + "windows); drop it");
    }
  }

  private void checkFilterMode() {
    String modeName = mode.name().toLowerCase(Locale.ROOT);
    if (window != null
        || sliding
        || timeField != null
        || maxDelay != null
        || allowedLateness != null
        || lateTopic != null) {
      throw new IllegalArgumentException(
          "--window, --sliding, --time-field, --max-delay, --allowed-lateness and --late-topic "
              + "apply to --mode window, not --mode "
              + modeName
              + "; add --mode window or drop them");
    }
    if (expectedKeys == null) {
      throw new IllegalArgumentException(
          "--mode "
              + modeName
              + " needs --expected-keys N, the number of distinct keys the job will see: it "
              + "sizes the filters (a rough guess is fine)");
    }
    if (expectedKeys < 1) {
      throw new IllegalArgumentException("--expected-keys " + expectedKeys + ": give 1 or more");
    }
    if (mode == Mode.APPROXIMATE && fpp == null) {
      throw new IllegalArgumentException(
          "--mode approximate needs --fpp P, the share of new keys it may drop (e.g. 0.001)");
    }
  }

  private static void positive(String option, Duration d) {
    if (d.isZero() || d.isNegative()) {
      throw new IllegalArgumentException(option + " " + d + ": give a duration above 0");
    }
  }

  private static void notNegative(String option, Duration d) {
    if (d != null && d.isNegative()) {
      throw new IllegalArgumentException(option + " cannot be negative");
    }
  }

  Duration maxDelayOrZero() {
    return maxDelay == null ? Duration.ZERO : maxDelay;
  }

  Duration allowedLatenessOrZero() {
    return allowedLateness == null ? Duration.ZERO : allowedLateness;
  }

  String transactionalIdPrefixOrDefault() {
    return transactionalIdPrefix != null ? transactionalIdPrefix : "idem-" + sinkEndpoint.topic();
  }

  /** {@code 250ms}, {@code 30s}, {@code 10m}, {@code 2h}, {@code 1d}, or an ISO-8601 duration. */
  static final class DurationConverter implements ITypeConverter<Duration> {
    private static final Pattern SIMPLE = Pattern.compile("(\\d+)(ms|s|m|h|d)");

    @Override
    public Duration convert(String value) {
      Matcher m = SIMPLE.matcher(value.trim().toLowerCase(Locale.ROOT));
      if (m.matches()) {
        long n = Long.parseLong(m.group(1));
        switch (m.group(2)) {
          case "ms":
            return Duration.ofMillis(n);
          case "s":
            return Duration.ofSeconds(n);
          case "m":
            return Duration.ofMinutes(n);
          case "h":
            return Duration.ofHours(n);
          default:
            return Duration.ofDays(n);
        }
      }
      try {
        return Duration.parse(value);
      } catch (java.time.format.DateTimeParseException e) {
        throw new CommandLine.TypeConversionException(
            "'" + value + "' is not a duration: write e.g. 500ms, 30s, 10m, 2h or 1d");
      }
    }
  }

  /** The modes in lower case, as the command line writes them. */
  static final class ModeConverter implements ITypeConverter<Mode> {
    @Override
    public Mode convert(String value) {
      try {
        return Mode.valueOf(value.toUpperCase(Locale.ROOT));
      } catch (IllegalArgumentException e) {
        throw new CommandLine.TypeConversionException(
            "'" + value + "' is not a mode: give exact, approximate or window");
      }
    }
  }
}
