package dev.idem.engine.records;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.format.DateTimeParseException;
import java.util.Locale;

/** How event times are written in records, and their parsing into epoch milliseconds. */
public enum EventTime {
  /** Epoch milliseconds, an integer: {@code 1764669600000}. */
  MILLIS,
  /** Epoch seconds, integer or decimal: {@code 1764669600} or {@code 1764669600.25}. */
  SECONDS,
  /** ISO-8601 with an offset: {@code 2025-12-02T10:00:00Z}, {@code 2025-12-02T11:00:00+01:00}. */
  ISO;

  /**
   * The time written in {@code text[offset, offset + length)}, in epoch milliseconds.
   *
   * @throws IllegalArgumentException saying what was found and what this format expects
   */
  public long parse(byte[] text, int offset, int length) {
    String s = new String(text, offset, length, StandardCharsets.UTF_8).strip();
    try {
      return switch (this) {
        case MILLIS -> Long.parseLong(s);
        case SECONDS ->
            new java.math.BigDecimal(s)
                .movePointRight(3)
                .setScale(0, java.math.RoundingMode.FLOOR)
                .longValueExact();
        case ISO -> parseIso(s);
      };
    } catch (NumberFormatException | ArithmeticException | DateTimeParseException e) {
      throw new IllegalArgumentException(
          "event time '"
              + abbreviate(s)
              + "' is not "
              + switch (this) {
                case MILLIS -> "epoch milliseconds (use --time-format seconds or iso?)";
                case SECONDS -> "epoch seconds";
                case ISO -> "an ISO-8601 time with an offset, like 2025-12-02T10:00:00Z";
              });
    }
  }

  private static long parseIso(String s) {
    try {
      return Instant.parse(s).toEpochMilli();
    } catch (DateTimeParseException e) {
      return OffsetDateTime.parse(s).toInstant().toEpochMilli();
    }
  }

  private static String abbreviate(String s) {
    return s.length() <= 40 ? s : s.substring(0, 37) + "...";
  }

  /** The lower-case name used on the command line. */
  public String displayName() {
    return name().toLowerCase(Locale.ROOT);
  }
}
