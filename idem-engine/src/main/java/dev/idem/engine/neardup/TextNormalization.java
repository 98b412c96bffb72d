package dev.idem.engine.neardup;

import java.text.Normalizer;
import java.util.Locale;

/**
 * How a document's text is normalised before it is cut into shingles: {@code nfkc} (compatibility
 * composition, so that a ligature or a full-width letter reads as its plain letters), {@code lower}
 * (locale-independent lower case) and {@code punct} (Unicode punctuation removed, so that "end."
 * and "end" are one word). The steps always run in that order, whatever order they are named in, so
 * that two spellings of one option cannot give two different shingle sets.
 */
public record TextNormalization(boolean nfkc, boolean lower, boolean punct) {

  /** The default: all three steps. */
  public static final TextNormalization DEFAULT = new TextNormalization(true, true, true);

  /**
   * Parses {@code nfkc,lower,punct} (any subset, comma-separated) or {@code none}.
   *
   * @throws IllegalArgumentException naming the step it does not know
   */
  public static TextNormalization parse(String steps) {
    boolean nfkc = false;
    boolean lower = false;
    boolean punct = false;
    for (String raw : steps.split(",", -1)) {
      String step = raw.strip().toLowerCase(Locale.ROOT);
      switch (step) {
        case "nfkc" -> nfkc = true;
        case "lower", "lowercase" -> lower = true;
        case "punct" -> punct = true;
        case "none" -> {}
        default ->
            throw new IllegalArgumentException(
                "--normalize: unknown step '"
                    + raw.strip()
                    + "': the steps are nfkc, lower and punct, comma-separated, or none");
      }
    }
    return new TextNormalization(nfkc, lower, punct);
  }

  /** The text after the steps. */
  public String apply(String text) {
    String s = nfkc ? Normalizer.normalize(text, Normalizer.Form.NFKC) : text;
    if (lower) {
      s = s.toLowerCase(Locale.ROOT);
    }
    return punct ? withoutPunctuation(s) : s;
  }

  private static String withoutPunctuation(String s) {
    StringBuilder b = null;
    for (int i = 0; i < s.length(); ) {
      int c = s.codePointAt(i);
      int n = Character.charCount(c);
      if (isPunctuation(c)) {
        if (b == null) {
          b = new StringBuilder(s.length()).append(s, 0, i);
        }
      } else if (b != null) {
        b.appendCodePoint(c);
      }
      i += n;
    }
    return b == null ? s : b.toString();
  }

  private static boolean isPunctuation(int c) {
    return switch (Character.getType(c)) {
      case Character.CONNECTOR_PUNCTUATION,
          Character.DASH_PUNCTUATION,
          Character.START_PUNCTUATION,
          Character.END_PUNCTUATION,
          Character.INITIAL_QUOTE_PUNCTUATION,
          Character.FINAL_QUOTE_PUNCTUATION,
          Character.OTHER_PUNCTUATION ->
          true;
      default -> false;
    };
  }

  /** As {@code --normalize} writes it. */
  @Override
  public String toString() {
    StringBuilder b = new StringBuilder();
    if (nfkc) {
      b.append("nfkc,");
    }
    if (lower) {
      b.append("lower,");
    }
    if (punct) {
      b.append("punct,");
    }
    return b.length() == 0 ? "none" : b.substring(0, b.length() - 1);
  }
}
