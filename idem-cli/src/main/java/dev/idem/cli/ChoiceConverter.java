package dev.idem.cli;

import dev.idem.core.filter.FilterType;
import dev.idem.engine.DedupMode;
import dev.idem.engine.KeyMode;
import dev.idem.engine.records.EventTime;
import dev.idem.engine.records.RecordFormat;
import dev.idem.engine.records.VerifyInputs;
import dev.idem.engine.sort.SortDedupSpec;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.Iterator;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Collectors;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

/**
 * An option whose value is one word of a fixed few, in any case, each standing for an enum
 * constant. picocli's own enum conversion lists the choices by their Java names in its message
 * ({@code [FINGERPRINT, FULL_KEY]}) and cannot offer only some constants; this one names the value
 * and the words the help text uses: {@code 'zstd' is not auto, lz4 or none}.
 *
 * <p>picocli creates converters from their class, so each option type has its subclass below. Each
 * is also the option's completion candidates: the same words, in the same case.
 */
class ChoiceConverter<E extends Enum<E>> implements ITypeConverter<E>, Iterable<String> {

  /** The word for each constant, in declaration order: the order the message lists them. */
  private final Map<E, String> words;

  /** The given constants, each spelled as its name in lower case. */
  @SafeVarargs
  ChoiceConverter(E... constants) {
    this(
        Arrays.stream(constants)
            .collect(Collectors.toMap(c -> c, c -> c.name().toLowerCase(Locale.ROOT))));
  }

  ChoiceConverter(Map<E, String> words) {
    this.words = new EnumMap<>(words);
  }

  @Override
  public E convert(String value) {
    for (Map.Entry<E, String> w : words.entrySet()) {
      if (w.getValue().equalsIgnoreCase(value.strip())) {
        return w.getKey();
      }
    }
    throw new TypeConversionException("'" + value + "' is not " + choices());
  }

  /**
   * The words, for shell completion ({@code completionCandidates}, which picocli would otherwise
   * take from the enum's constants, in upper case, all of them).
   */
  @Override
  public Iterator<String> iterator() {
    return words.values().iterator();
  }

  /** {@code a, b or c}. */
  private String choices() {
    String all = String.join(", ", words.values());
    int last = all.lastIndexOf(", ");
    return last < 0 ? all : all.substring(0, last) + " or " + all.substring(last + 2);
  }

  /** {@code dedup --mode}. */
  static final class Mode extends ChoiceConverter<DedupMode> {
    Mode() {
      super(DedupMode.values());
    }
  }

  /** {@code dedup --key-mode}: "full" is shorter than the engine's name for it. */
  static final class KeyModes extends ChoiceConverter<KeyMode> {
    KeyModes() {
      super(Map.of(KeyMode.FINGERPRINT, "fingerprint", KeyMode.FULL_KEY, "full"));
    }
  }

  /** {@code dedup --filter}: the filters that can be a dedup job's first tier. */
  static final class Filter extends ChoiceConverter<FilterType> {
    Filter() {
      super(FilterType.BLOOM, FilterType.BLOCKED, FilterType.PARTITIONED, FilterType.SCALABLE);
    }
  }

  /** {@code dedup --time-format}. */
  static final class TimeFormat extends ChoiceConverter<EventTime> {
    TimeFormat() {
      super(EventTime.values());
    }
  }

  /** {@code --verify-inputs} of {@code dedup} and {@code split}. */
  static final class Verify extends ChoiceConverter<VerifyInputs> {
    Verify() {
      super(VerifyInputs.values());
    }
  }

  /** {@code --format} of {@code dedup}, {@code sort-dedup}, {@code split} and {@code plan}. */
  static final class Format extends ChoiceConverter<RecordFormat> {
    Format() {
      super(RecordFormat.values());
    }
  }

  /** {@code sort-dedup --keep}. */
  static final class Keep extends ChoiceConverter<SortDedupSpec.Keep> {
    Keep() {
      super(SortDedupSpec.Keep.values());
    }
  }

  /** {@code sort-dedup --order}. */
  static final class Order extends ChoiceConverter<SortDedupSpec.Order> {
    Order() {
      super(SortDedupSpec.Order.values());
    }
  }

  /** {@code sort-dedup --compress-runs}. */
  static final class RunCompression extends ChoiceConverter<SortDedupCommand.CompressRuns> {
    RunCompression() {
      super(SortDedupCommand.CompressRuns.values());
    }
  }

  /** {@code split --compress}: none, gzip, zstd. */
  static final class FileCompression extends ChoiceConverter<dev.idem.engine.input.Compression> {
    FileCompression() {
      super(dev.idem.engine.input.Compression.values());
    }
  }

  /** {@code plan --shared-state}. */
  static final class SharedStates extends ChoiceConverter<PlanCommand.SharedState> {
    SharedStates() {
      super(PlanCommand.SharedState.values());
    }
  }

  /** {@code filter query --load}. */
  static final class Load extends ChoiceConverter<SnapshotLoader.Mode> {
    Load() {
      super(SnapshotLoader.Mode.values());
    }
  }
}
