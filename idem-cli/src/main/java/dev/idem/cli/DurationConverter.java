package dev.idem.cli;

import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

/**
 * Parses a duration as people write it: {@code 500ms}, {@code 30s}, {@code 10m}, {@code 24h},
 * {@code 7d}, or ISO-8601 ({@code PT24H}). Must be positive.
 */
final class DurationConverter implements ITypeConverter<Duration> {

  private static final Pattern SIMPLE = Pattern.compile("(\\d+)(ms|s|m|h|d)");

  @Override
  public Duration convert(String value) {
    String s = value.strip().toLowerCase(Locale.ROOT);
    Duration d;
    Matcher m = SIMPLE.matcher(s);
    try {
      if (m.matches()) {
        long n = Long.parseLong(m.group(1));
        d =
            switch (m.group(2)) {
              case "ms" -> Duration.ofMillis(n);
              case "s" -> Duration.ofSeconds(n);
              case "m" -> Duration.ofMinutes(n);
              case "h" -> Duration.ofHours(n);
              default -> Duration.ofDays(n);
            };
      } else {
        d = Duration.parse(value.strip().toUpperCase(Locale.ROOT));
      }
    } catch (DateTimeParseException | ArithmeticException | NumberFormatException e) {
      throw new TypeConversionException(
          "'" + value + "' is not a duration (examples: 500ms, 30s, 10m, 24h, 7d, PT1H30M)");
    }
    if (d.isNegative() || d.isZero()) {
      throw new TypeConversionException("'" + value + "' must be a positive duration");
    }
    return d;
  }
}
