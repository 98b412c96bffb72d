package dev.idem.cli;

import java.util.Locale;

/** Rates as people read them: {@code 0.001 → "0.1000 %"}, small ones in scientific notation. */
final class Percent {

  private Percent() {}

  static String of(double rate) {
    double percent = rate * 100;
    if (percent == 0) {
      return "0 %";
    }
    if (percent < 0.0001) {
      return String.format(Locale.ROOT, "%.3e %%", percent);
    }
    return String.format(Locale.ROOT, "%.4f %%", percent);
  }
}
