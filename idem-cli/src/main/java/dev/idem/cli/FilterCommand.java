package dev.idem.cli;

import dev.idem.core.filter.FilterType;
import java.util.Iterator;
import java.util.List;
import picocli.CommandLine.Command;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;
import picocli.CommandLine.TypeConversionException;

/** {@code idem filter}: the approximate-membership filters on their own. */
@Command(
    name = "filter",
    footerHeading = "%nExamples:%n",
    footer = {
      "  idem filter build --expected 1M --fpp 0.1%% -o urls.idx urls.txt",
      "  idem filter query urls.idx https://example.com/a https://example.com/zzz",
      "  idem filter stats urls.idx"
    },
    mixinStandardHelpOptions = true,
    versionProvider = IdemCommand.Version.class,
    description = {
      "Build, query, inspect and verify approximate membership filters.",
      "A filter answers 'new' (certainly never added) or 'maybe' (added, or a false positive at "
          + "the rate it was sized for).",
      ""
    },
    subcommands = {
      FilterBuildCommand.class,
      FilterQueryCommand.class,
      FilterStatsCommand.class,
      FilterVerifyCommand.class
    })
final class FilterCommand implements Runnable {

  @Spec CommandSpec spec;

  @Override
  public void run() {
    throw new ParameterException(
        spec.commandLine(), "a subcommand is required: build, query, stats or verify");
  }

  /** {@code --type bloom|blocked|partitioned}. */
  static final class TypeConverter implements ITypeConverter<FilterType> {
    @Override
    public FilterType convert(String value) {
      try {
        return FilterType.byName(value.strip().toLowerCase(java.util.Locale.ROOT));
      } catch (IllegalArgumentException e) {
        throw new TypeConversionException(e.getMessage());
      }
    }
  }

  /** Completion candidates and help text for {@code --type}. */
  static final class TypeNames implements Iterable<String> {
    @Override
    public Iterator<String> iterator() {
      return List.of(FilterType.values()).stream().map(FilterType::displayName).iterator();
    }
  }
}
