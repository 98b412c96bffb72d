package dev.idem.core;

import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.text.Normalizer;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Rewrites a key before it is hashed, so that keys a user considers equal get one fingerprint.
 * Immutable; steps run in the order they were added.
 *
 * <p>Steps: {@code trim} (white space, including no-break spaces, at both ends), {@code lowercase}
 * (locale-independent), {@code nfc} (Unicode canonical composition, so "é" typed two ways is one
 * key), {@code collapse-whitespace} (every run of white space becomes one space), and {@code
 * strip-prefix=P} (removes {@code P} once from the start when present). The identity normaliser
 * leaves bytes untouched and costs nothing; every other one reads the key as UTF-8 and refuses
 * bytes that are not.
 *
 * <p>The textual form, {@link #spec()}, is stored in snapshots and accepted by {@link
 * #parse(String)}: steps separated by commas, e.g. {@code "trim,lowercase,strip-prefix=www."}.
 */
public final class KeyNormalizer {

  private static final KeyNormalizer IDENTITY = new KeyNormalizer(List.of());
  private static final String STRIP_PREFIX = "strip-prefix=";

  private final List<Step> steps;

  private KeyNormalizer(List<Step> steps) {
    this.steps = List.copyOf(steps);
  }

  /** The normaliser that changes nothing. */
  public static KeyNormalizer identity() {
    return IDENTITY;
  }

  /**
   * Parses a comma-separated list of steps; an empty or blank spec, or {@code "identity"}, is the
   * identity.
   *
   * @throws IllegalArgumentException naming the unknown step and listing the known ones
   */
  public static KeyNormalizer parse(String spec) {
    if (spec == null || spec.isBlank() || spec.strip().equals("identity")) {
      return IDENTITY;
    }
    List<Step> steps = new ArrayList<>();
    for (String raw : spec.split(",", -1)) {
      String name = raw.strip();
      if (name.startsWith(STRIP_PREFIX)) {
        steps.add(new StripPrefix(raw.substring(raw.indexOf('=') + 1)));
        continue;
      }
      Simple simple = Simple.byName(name);
      if (simple == null) {
        throw new IllegalArgumentException(
            "unknown normalizer step '"
                + name
                + "'; known steps: trim, lowercase, nfc, "
                + "collapse-whitespace, strip-prefix=PREFIX (comma-separated, applied in order)");
      }
      steps.add(simple);
    }
    return new KeyNormalizer(steps);
  }

  /** Adds: remove Unicode white space at both ends. */
  public KeyNormalizer trim() {
    return with(Simple.TRIM);
  }

  /** Adds: lower-case with {@link Locale#ROOT}, so the result does not depend on the machine. */
  public KeyNormalizer lowerCase() {
    return with(Simple.LOWERCASE);
  }

  /** Adds: Unicode normalisation form C. */
  public KeyNormalizer nfc() {
    return with(Simple.NFC);
  }

  /** Adds: replace every run of Unicode white space with a single space. */
  public KeyNormalizer collapseWhitespace() {
    return with(Simple.COLLAPSE_WHITESPACE);
  }

  /**
   * Adds: remove {@code prefix} once from the start of the key when the key starts with it.
   *
   * @throws IllegalArgumentException when the prefix is empty or contains a comma (which the spec
   *     syntax uses to separate steps)
   */
  public KeyNormalizer stripPrefix(String prefix) {
    return with(new StripPrefix(prefix));
  }

  private KeyNormalizer with(Step step) {
    List<Step> next = new ArrayList<>(steps);
    next.add(step);
    return new KeyNormalizer(next);
  }

  /** True when this normaliser changes nothing (and so never decodes the key). */
  public boolean isIdentity() {
    return steps.isEmpty();
  }

  /** The textual form accepted by {@link #parse(String)}; {@code "identity"} for no steps. */
  public String spec() {
    if (steps.isEmpty()) {
      return "identity";
    }
    StringBuilder sb = new StringBuilder();
    for (Step s : steps) {
      if (sb.length() > 0) {
        sb.append(',');
      }
      sb.append(s.spec());
    }
    return sb.toString();
  }

  /** Applies every step in order. */
  public String normalize(String key) {
    String s = key;
    for (Step step : steps) {
      s = step.apply(s);
    }
    return s;
  }

  /**
   * Applies every step to a UTF-8 key and returns the UTF-8 result (the input itself when this is
   * the identity and the range is the whole array).
   *
   * @throws IllegalArgumentException when a text step must run and the bytes are not valid UTF-8
   */
  public byte[] normalize(byte[] key, int offset, int length) {
    if (isIdentity()) {
      if (offset == 0 && length == key.length) {
        return key;
      }
      byte[] copy = new byte[length];
      System.arraycopy(key, offset, copy, 0, length);
      return copy;
    }
    return normalize(decodeStrict(key, offset, length)).getBytes(StandardCharsets.UTF_8);
  }

  private static String decodeStrict(byte[] key, int offset, int length) {
    CharsetDecoder decoder =
        StandardCharsets.UTF_8
            .newDecoder()
            .onMalformedInput(CodingErrorAction.REPORT)
            .onUnmappableCharacter(CodingErrorAction.REPORT);
    ByteBuffer in = ByteBuffer.wrap(key, offset, length);
    try {
      CharBuffer chars = decoder.decode(in);
      return chars.toString();
    } catch (CharacterCodingException e) {
      int at = in.position() - offset;
      throw new IllegalArgumentException(
          String.format(
              Locale.ROOT,
              "key is not valid UTF-8 (bad byte 0x%02x at offset %d); text normalization needs "
                  + "UTF-8 keys — drop the normalizer to treat keys as raw bytes",
              key[offset + Math.min(at, length - 1)] & 0xFF,
              at));
    }
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof KeyNormalizer k && k.steps.equals(steps);
  }

  @Override
  public int hashCode() {
    return steps.hashCode();
  }

  @Override
  public String toString() {
    return spec();
  }

  /** White space for trim and collapse: Java's white space plus the no-break spaces. */
  private static boolean isSpace(int codePoint) {
    return Character.isWhitespace(codePoint) || Character.isSpaceChar(codePoint);
  }

  private interface Step {
    String apply(String s);

    String spec();
  }

  private enum Simple implements Step {
    TRIM("trim") {
      @Override
      public String apply(String s) {
        int start = 0;
        int end = s.length();
        while (start < end && isSpace(s.codePointAt(start))) {
          start += Character.charCount(s.codePointAt(start));
        }
        while (end > start && isSpace(s.codePointBefore(end))) {
          end -= Character.charCount(s.codePointBefore(end));
        }
        return s.substring(start, end);
      }
    },
    LOWERCASE("lowercase") {
      @Override
      public String apply(String s) {
        return s.toLowerCase(Locale.ROOT);
      }
    },
    NFC("nfc") {
      @Override
      public String apply(String s) {
        return Normalizer.normalize(s, Normalizer.Form.NFC);
      }
    },
    COLLAPSE_WHITESPACE("collapse-whitespace") {
      @Override
      public String apply(String s) {
        StringBuilder sb = new StringBuilder(s.length());
        boolean inRun = false;
        for (int i = 0; i < s.length(); ) {
          int cp = s.codePointAt(i);
          i += Character.charCount(cp);
          if (isSpace(cp)) {
            if (!inRun) {
              sb.append(' ');
            }
            inRun = true;
          } else {
            sb.appendCodePoint(cp);
            inRun = false;
          }
        }
        return sb.toString();
      }
    };

    private final String name;

    Simple(String name) {
      this.name = name;
    }

    @Override
    public String spec() {
      return name;
    }

    static Simple byName(String name) {
      for (Simple s : values()) {
        if (s.name.equals(name)) {
          return s;
        }
      }
      return null;
    }
  }

  private record StripPrefix(String prefix) implements Step {
    StripPrefix {
      if (prefix.isEmpty() || prefix.indexOf(',') >= 0) {
        throw new IllegalArgumentException(
            "strip-prefix needs a non-empty prefix without commas, got '" + prefix + "'");
      }
    }

    @Override
    public String apply(String s) {
      return s.startsWith(prefix) ? s.substring(prefix.length()) : s;
    }

    @Override
    public String spec() {
      return STRIP_PREFIX + prefix;
    }
  }
}
