package dev.idem.cli;

import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

/** Parses a probability, {@code 0.001} or {@code 0.1%}; must lie strictly between 0 and 1. */
final class RateConverter implements ITypeConverter<Double> {

  @Override
  public Double convert(String value) {
    String s = value.strip();
    double scale = 1;
    if (s.endsWith("%")) {
      s = s.substring(0, s.length() - 1).strip();
      scale = 100;
    }
    double p;
    try {
      p = Double.parseDouble(s) / scale;
    } catch (NumberFormatException e) {
      throw new TypeConversionException("'" + value + "' is not a rate (examples: 0.001, 0.1%)");
    }
    if (!(p > 0 && p < 1)) {
      throw new TypeConversionException(
          "'" + value + "' must be between 0 and 1, exclusive (examples: 0.001, 0.1%)");
    }
    return p;
  }
}
