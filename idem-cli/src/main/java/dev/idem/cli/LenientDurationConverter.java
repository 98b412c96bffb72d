package dev.idem.cli;

import java.time.Duration;
import picocli.CommandLine.ITypeConverter;

/** A duration that may be zero ({@code 0s}), for delays and lateness; see DurationConverter. */
final class LenientDurationConverter implements ITypeConverter<Duration> {

  @Override
  public Duration convert(String value) {
    if (value.strip().matches("0+(ms|s|m|h|d)?")) {
      return Duration.ZERO;
    }
    return new DurationConverter().convert(value);
  }
}
