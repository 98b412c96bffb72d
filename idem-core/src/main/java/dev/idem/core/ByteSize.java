package dev.idem.core;

import java.util.Locale;

/** Human-readable byte counts, in binary units (KiB = 1024 bytes), as the CLI prints them. */
public final class ByteSize {

  private static final String[] UNITS = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};

  private ByteSize() {}

  /** {@code 1536 → "1.5 KiB"}, {@code 179_000_000 → "170.7 MiB"}; below 1 KiB in whole bytes. */
  public static String format(long bytes) {
    if (bytes < 1024) {
      return bytes + " B";
    }
    double value = bytes;
    int unit = 0;
    while (value >= 1024 && unit < UNITS.length - 1) {
      value /= 1024;
      unit++;
    }
    return String.format(Locale.ROOT, "%.1f %s", value, UNITS[unit]);
  }
}
