package dev.idem.cli;

import com.dynatrace.hash4j.distinctcount.UltraLogLog;
import dev.idem.core.ByteSize;
import dev.idem.core.Fingerprinter;
import dev.idem.core.KeyNormalizer;
import dev.idem.core.filter.AbstractBloomFilter;
import dev.idem.core.filter.FilterFullException;
import dev.idem.core.filter.FilterSnapshot;
import dev.idem.core.filter.FilterType;
import dev.idem.core.filter.MembershipFilter;
import dev.idem.engine.input.Inputs;
import dev.idem.engine.input.LineReader;
import dev.idem.engine.output.OutputGuard;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code idem filter build}: keys in, snapshot out. */
@Command(
    name = "build",
    footerHeading = "%nExamples:%n",
    footer = {
      "  # a blocked Bloom filter for 1 M keys at 0.1 %%, keys one per line",
      "  idem filter build --type blocked --expected 1M --fpp 0.1%% -o urls.idx \\",
      "      urls.txt",
      "  # keys compared after trimming and lower-casing",
      "  idem filter build --expected 1M --normalize trim,lowercase -o lower.idx \\",
      "      urls.txt"
    },
    mixinStandardHelpOptions = true,
    versionProvider = IdemCommand.Version.class,
    description = {
      "Build a filter from keys, one per line, and save it as a snapshot file.",
      "Keys are the raw bytes of each line (a trailing CR is dropped). gzip, zstd, xz and bzip2 files are "
          + "decompressed; '-' or no input reads standard input.",
      ""
    })
final class FilterBuildCommand implements Callable<Integer> {

  private static final int BATCH = 256;

  /**
   * 2^12 registers, 4 KiB: distinct-key estimates within ±1.2 % (one standard error), to tell an
   * overfilled filter, whose own count saturates.
   */
  private static final int DISTINCT_SKETCH_PRECISION = 12;

  private static final double DISTINCT_SKETCH_ERROR = 0.012;

  @Spec CommandSpec spec;

  @Mixin FilterOptions filterOptions;

  @Option(
      names = {"-n", "--expected"},
      required = true,
      paramLabel = "N",
      converter = CountConverter.class,
      description =
          "Number of distinct keys the filter must hold at the target rate "
              + "(1000000, 1e6, 10M, 2G). Size it by distinct keys, not records. For scalable: "
              + "the first layer's (or a slice's) capacity.")
  long expected;

  @Option(
      names = {"-o", "--output"},
      required = true,
      paramLabel = "FILE",
      description = "Snapshot file to write (replaced atomically if it exists).")
  Path output;

  @Option(
      names = "--normalize",
      paramLabel = "STEPS",
      defaultValue = "identity",
      description =
          "Key normalisation before hashing, comma-separated steps applied in order: "
              + "trim, lowercase, nfc, collapse-whitespace, strip-prefix=PREFIX "
              + "(default: none). Stored in the snapshot, so queries normalise the same way.")
  String normalize;

  @Option(
      names = "--seed",
      defaultValue = "0",
      paramLabel = "S",
      description = "Hash seed (default: ${DEFAULT-VALUE}). Stored in the snapshot.")
  long seed;

  @Option(
      names = {"-q", "--quiet"},
      description = "Print nothing but errors.")
  boolean quiet;

  @Parameters(
      paramLabel = "INPUT",
      arity = "0..*",
      description =
          "Files of keys, one per line ('-' for standard input; default: standard " + "input).")
  List<String> inputs = List.of();

  private final Io io;

  FilterBuildCommand(Io io) {
    this.io = io;
  }

  @Override
  public Integer call() throws IOException {
    KeyNormalizer normalizer;
    try {
      normalizer = KeyNormalizer.parse(normalize);
    } catch (IllegalArgumentException e) {
      throw new ParameterException(spec.commandLine(), "--normalize: " + e.getMessage());
    }
    new OutputGuard()
        .inputs(inputs.isEmpty() ? List.of(Inputs.STDIN) : inputs)
        .output("-o " + output, output)
        .check();
    Path dir = output.toAbsolutePath().getParent();
    if (!Files.isDirectory(dir)) {
      throw new UserException(output + ": cannot write: directory " + dir + " does not exist");
    }
    MembershipFilter filter = createFilter();
    Terminal.sayWhenReadingTheTerminal(io, "idem filter build", inputs, "keys");
    Fingerprinter fingerprinter = Fingerprinter.xxh3().withSeed(seed).withNormalizer(normalizer);
    long lines = 0;
    UltraLogLog distinct = UltraLogLog.create(DISTINCT_SKETCH_PRECISION);
    long[] batch = new long[2 * BATCH];
    boolean[] changed = new boolean[BATCH];
    int pending = 0;
    for (String input : inputs.isEmpty() ? List.of(Inputs.STDIN) : inputs) {
      try (LineReader reader =
          new LineReader(Inputs.open(input, io.in()), Inputs.displayName(input))) {
        while (reader.next()) {
          try {
            fingerprinter.fingerprintInto(
                reader.bytes(), reader.offset(), reader.length(), batch, pending);
          } catch (IllegalArgumentException e) {
            throw new UserException(
                reader.source() + ":" + reader.lineNumber() + ": " + e.getMessage());
          }
          distinct.add(batch[2 * pending + 1]);
          lines++;
          if (++pending == BATCH) {
            putAll(filter, batch, pending, changed);
            pending = 0;
          }
        }
      }
    }
    putAll(filter, batch, pending, changed);
    try {
      FilterSnapshot.write(output, filter, fingerprinter);
    } catch (IOException e) {
      throw new UserException(output + ": cannot write: " + e.getMessage(), e);
    }
    report(filter, lines, Math.round(distinct.getDistinctCountEstimate()));
    return 0;
  }

  private void putAll(MembershipFilter filter, long[] batch, int count, boolean[] changed) {
    try {
      filter.putAll(batch, 0, count, changed);
    } catch (FilterFullException e) {
      throw new UserException(
          output
              + ": not written: "
              + e.getMessage()
              + " (about "
              + filter.approximateCount()
              + " keys fit; raise --expected)");
    }
  }

  private MembershipFilter createFilter() {
    try {
      return filterOptions.create(expected);
    } catch (IllegalArgumentException e) {
      throw new ParameterException(spec.commandLine(), e.getMessage());
    } catch (IllegalStateException e) {
      throw new UserException(e.getMessage());
    }
  }

  /**
   * Below capacity the filter's own count (changing puts) is the better estimate: it misses only
   * keys that arrived as false positives. An overfilled filter misses many, so beyond capacity the
   * sketch's estimate is used, and the user is told how to rebuild. A growing filter is never
   * overfilled.
   */
  private void report(MembershipFilter filter, long lines, long sketchEstimate) {
    // beyond three standard errors of the sketch, so an exact fit never warns
    boolean overfilled =
        filter.type() != FilterType.SCALABLE
            && sketchEstimate > filter.capacity() * (1 + 3 * DISTINCT_SKETCH_ERROR);
    long distinctKeys = overfilled ? sketchEstimate : filter.approximateCount();
    double rateNow =
        filter instanceof AbstractBloomFilter b
            ? b.falsePositiveRate(distinctKeys)
            : filter.expectedFpp();
    double target = filterOptions.target();
    if (overfilled) {
      io.err()
          .printf(
              Locale.ROOT,
              "idem: warning: about %,d distinct keys is more than the %,d the filter was sized for; "
                  + "its false-positive rate is now about %s (target %s). Rebuild with --expected "
                  + "%d or more.%n",
              distinctKeys,
              filter.capacity(),
              Percent.of(rateNow),
              Percent.of(target),
              distinctKeys);
    }
    if (quiet) {
      return;
    }
    io.err()
        .printf(
            Locale.ROOT,
            "%s: %s filter, about %,d distinct keys from %,d lines; %s, %.2f bits/key at "
                + "capacity %,d; expected false-positive rate now %s (target %s)%n",
            output,
            filter.type().displayName(),
            distinctKeys,
            lines,
            ByteSize.format((filter.bitSize() + 7) / 8),
            (double) filter.bitSize() / filter.capacity(),
            filter.capacity(),
            Percent.of(rateNow),
            Percent.of(target));
  }
}
