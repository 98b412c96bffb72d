package dev.idem.cli;

import java.util.Locale;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

/** Parses a byte size: {@code 4096}, {@code 64k}, {@code 16m}, {@code 2g} (binary units). */
final class SizeConverter implements ITypeConverter<Long> {

  @Override
  public Long convert(String value) {
    String s = value.strip().toLowerCase(Locale.ROOT).replace("ib", "").replace("b", "");
    long unit = 1;
    if (!s.isEmpty()) {
      switch (s.charAt(s.length() - 1)) {
        case 'k' -> unit = 1L << 10;
        case 'm' -> unit = 1L << 20;
        case 'g' -> unit = 1L << 30;
        case 't' -> unit = 1L << 40;
        default -> unit = 1;
      }
      if (unit != 1) {
        s = s.substring(0, s.length() - 1);
      }
    }
    try {
      long n = Long.parseLong(s);
      if (n <= 0) {
        throw new TypeConversionException("'" + value + "' must be a positive size");
      }
      return Math.multiplyExact(n, unit);
    } catch (NumberFormatException | ArithmeticException e) {
      throw new TypeConversionException(
          "'" + value + "' is not a size (examples: 4096, 64k, 16m, 2g)");
    }
  }
}
