package dev.idem.cli;

import java.math.BigDecimal;
import java.util.Locale;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

/**
 * Parses a count the way people write large numbers: {@code 1000000}, {@code 1_000_000}, {@code
 * 1,000,000}, {@code 1e6}, or with a decimal suffix {@code 10k}, {@code 100M}, {@code 2G}, {@code
 * 1T}. Must be a positive whole number.
 */
class CountConverter implements ITypeConverter<Long> {

  @Override
  public Long convert(String value) {
    String s = value.strip().replace("_", "").replace(",", "");
    long multiplier = 1;
    if (!s.isEmpty()) {
      switch (Character.toUpperCase(s.charAt(s.length() - 1))) {
        case 'K' -> multiplier = 1_000L;
        case 'M' -> multiplier = 1_000_000L;
        case 'G' -> multiplier = 1_000_000_000L;
        case 'T' -> multiplier = 1_000_000_000_000L;
        default -> multiplier = 1;
      }
      if (multiplier != 1) {
        s = s.substring(0, s.length() - 1);
      }
    }
    try {
      BigDecimal n =
          new BigDecimal(s.toLowerCase(Locale.ROOT)).multiply(BigDecimal.valueOf(multiplier));
      long result = n.longValueExact();
      if (result <= 0) {
        throw new TypeConversionException("'" + value + "' must be a positive count");
      }
      return result;
    } catch (NumberFormatException | ArithmeticException e) {
      throw new TypeConversionException(
          "'" + value + "' is not a whole count (examples: 1000000, 1e6, 10M, 2G)");
    }
  }
}
