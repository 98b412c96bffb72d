package dev.idem.cli;

import dev.idem.core.filter.CountingBloomFilter;
import dev.idem.core.filter.CuckooFilter;
import dev.idem.core.filter.FilterType;
import dev.idem.core.filter.Filters;
import dev.idem.core.filter.MembershipFilter;
import dev.idem.core.filter.ScalableBloomFilter;
import java.time.Duration;
import picocli.CommandLine.Option;

/**
 * The options that choose and shape a filter, shared by {@code filter build} and {@code filter
 * verify} so that both build exactly the same thing.
 */
final class FilterOptions {

  @Option(
      names = "--type",
      defaultValue = "blocked",
      paramLabel = "TYPE",
      converter = FilterCommand.TypeConverter.class,
      completionCandidates = FilterCommand.TypeNames.class,
      description =
          "Filter type: ${COMPLETION-CANDIDATES} (default: ${DEFAULT-VALUE}). "
              + "blocked: one cache miss per key; bloom: fewest bits of the Bloom family; "
              + "partitioned: one bit per slice; scalable: grows past N; counting, cuckoo: keys "
              + "can be removed (cuckoo uses fewest bits below ~3 %%); exact: fingerprint set.")
  FilterType type;

  @Option(
      names = {"-p", "--fpp"},
      defaultValue = "0.001",
      paramLabel = "P",
      converter = RateConverter.class,
      description =
          "Target false-positive rate at N keys (0.001 or 0.1%%; default: "
              + "${DEFAULT-VALUE}). For scalable: the bound on all layers together.")
  double fpp;

  @Option(
      names = "--growth",
      paramLabel = "S",
      defaultValue = "2",
      description =
          "scalable: capacity factor from one layer to the next (default: " + "${DEFAULT-VALUE}).")
  double growth;

  @Option(
      names = "--tightening",
      paramLabel = "R",
      defaultValue = "0.8",
      description =
          "scalable: error factor from one layer to the next (default: " + "${DEFAULT-VALUE}).")
  double tightening;

  @Option(
      names = "--slice-keys",
      paramLabel = "N",
      converter = CountConverter.class,
      description = "scalable: a new layer every N keys instead of on growth.")
  Long sliceKeys;

  @Option(
      names = "--slice-time",
      paramLabel = "DURATION",
      converter = DurationConverter.class,
      description = "scalable: a new layer every DURATION (24h, 30m, ...), N keys per slice.")
  Duration sliceTime;

  @Option(
      names = "--max-layers",
      paramLabel = "L",
      defaultValue = "0",
      description =
          "scalable with slices: keep the newest L layers, dropping older ones "
              + "(reported) — an approximate \"seen in the last L slices\" (default: keep all).")
  int maxLayers;

  @Option(
      names = "--counter-bits",
      paramLabel = "B",
      defaultValue = "4",
      description = "counting: bits per counter, 4 or 8 (default: ${DEFAULT-VALUE}).")
  int counterBits;

  @Option(
      names = "--fingerprint-bits",
      paramLabel = "F",
      description = "cuckoo: fingerprint width, 4 to 32 bits (default: ceil(log2(8 / P))).")
  Integer fingerprintBits;

  /** The rate the filter is built for: the cuckoo width, when given, sets it. */
  double target() {
    return type == FilterType.CUCKOO && fingerprintBits != null
        ? CuckooFilter.falsePositiveRate(0.95, fingerprintBits)
        : fpp;
  }

  /**
   * A new, empty filter for {@code n} keys.
   *
   * @throws IllegalArgumentException when the options do not fit together or the type
   */
  MembershipFilter create(long n) {
    boolean sliced = sliceKeys != null || sliceTime != null;
    if (type != FilterType.SCALABLE && (sliced || maxLayers != 0)) {
      throw new IllegalArgumentException(
          "--slice-keys, --slice-time and --max-layers apply to --type scalable only");
    }
    if (type != FilterType.CUCKOO && fingerprintBits != null) {
      throw new IllegalArgumentException("--fingerprint-bits applies to --type cuckoo only");
    }
    return switch (type) {
      case SCALABLE -> {
        if (sliceKeys != null && sliceTime != null) {
          throw new IllegalArgumentException("give --slice-keys or --slice-time, not both");
        }
        ScalableBloomFilter.Builder b =
            ScalableBloomFilter.builder()
                .initialCapacity(n)
                .falsePositiveRate(fpp)
                .growth(growth)
                .tightening(tightening)
                .maxLayers(maxLayers);
        if (sliceKeys != null) {
          b.sliceEvery(sliceKeys);
        }
        if (sliceTime != null) {
          b.sliceEvery(sliceTime);
        }
        yield b.build();
      }
      case COUNTING -> CountingBloomFilter.create(n, fpp, counterBits);
      case CUCKOO ->
          fingerprintBits != null
              ? CuckooFilter.withFingerprintBits(n, fingerprintBits)
              : CuckooFilter.create(n, fpp);
      default -> Filters.create(type, n, fpp);
    };
  }
}
