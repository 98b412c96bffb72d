package dev.idem.engine.corpus;

import com.dynatrace.hash4j.hashing.Hasher64;
import com.dynatrace.hash4j.hashing.Hashing;
import dev.idem.core.Fingerprinter;
import dev.idem.engine.neardup.TextNormalization;
import dev.idem.engine.neardup.Tokenizer;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.util.Arrays;

/**
 * Cuts text into tokens and gives each n-gram of tokens a 128-bit fingerprint, keeping where each
 * token lies in the text (chars), so that a match can be named by its span.
 *
 * <ul>
 *   <li>{@link Tokenizer#WORDS}: a token is a run of characters between white space, normalised on
 *       its own ({@link TextNormalization}: NFKC, lower case, punctuation removed); a run that
 *       normalises to nothing (punctuation alone) is no token. Its value is the 64-bit XXH3 of its
 *       normalised text (UTF-8).
 *   <li>{@link Tokenizer#CHARS}: a token is a character (code point) of a run normalised on its
 *       own, and each stretch of white space between runs one space; its value is the code point.
 * </ul>
 *
 * <p>The n-grams of {@code k} tokens are the {@code k - n + 1} runs of {@code n} consecutive
 * tokens; text of fewer tokens than {@code n} but at least one is one short n-gram of all of them
 * (as BFF and {@code near-dup} do), and text without a token has none. An n-gram's fingerprint is
 * the XXH3-128 (with the job's seed) of its tokens' values, eight little-endian bytes each: two
 * n-grams are confused only when their fingerprints collide (2<sup>-128</sup> a pair), or their
 * tokens' 64-bit values do.
 *
 * <p>Not thread-safe: it reuses its arrays.
 */
final class NgramHasher {

  private static final VarHandle LONG_LE =
      MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);

  private static final Hasher64 TOKEN_HASH = Hashing.xxh3_64();

  /** ASCII characters that {@code punct} removes: Unicode's punctuation categories. */
  private static final boolean[] ASCII_PUNCT = new boolean[128];

  static {
    for (int c = 0; c < 128; c++) {
      ASCII_PUNCT[c] =
          switch (Character.getType(c)) {
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
  }

  private final Tokenizer tokenizer;
  private final TextNormalization normalization;
  private final int n;
  private final Fingerprinter fingerprinter;
  private final TextBytes scratch = new TextBytes();

  /** The tokens of the last {@link #tokenize}: count, value, and span in the text. */
  int count;

  long[] value = new long[64];
  int[] tokenStart = new int[64];
  int[] tokenEnd = new int[64];

  /** The tokens' values as bytes, for hashing n-grams. */
  private byte[] valueBytes = new byte[512];

  NgramHasher(Tokenizer tokenizer, TextNormalization normalization, int n, long seed) {
    this.tokenizer = tokenizer;
    this.normalization = normalization;
    this.n = n;
    this.fingerprinter = Fingerprinter.xxh3().withSeed(seed);
  }

  int n() {
    return n;
  }

  /** The n-grams of {@code tokens} tokens. */
  int gramsOf(int tokens) {
    return tokens >= n ? tokens - n + 1 : tokens > 0 ? 1 : 0;
  }

  /** The tokens of {@code text[from, to)}; returns their count. */
  int tokenize(String text, int from, int to) {
    count = 0;
    boolean space = false;
    int i = from;
    while (i < to) {
      int c = text.codePointAt(i);
      if (Paragraphs.isSpace(c)) {
        space = true;
        i += Character.charCount(c);
        continue;
      }
      int runStart = i;
      boolean ascii = true;
      while (i < to) {
        c = text.codePointAt(i);
        if (Paragraphs.isSpace(c)) {
          break;
        }
        ascii &= c < 0x80;
        i += Character.charCount(c);
      }
      int before = count;
      if (tokenizer == Tokenizer.WORDS) {
        word(text, runStart, i, ascii);
      } else {
        chars(text, runStart, i, ascii, space && count > 0);
      }
      if (count > before) {
        space = false;
      }
    }
    return count;
  }

  private void word(String text, int s, int e, boolean ascii) {
    long h;
    if (ascii) {
      byte[] b = scratch.room(e - s);
      int len = 0;
      for (int i = s; i < e; i++) {
        char c = text.charAt(i);
        if (normalization.punct() && ASCII_PUNCT[c]) {
          continue;
        }
        if (normalization.lower() && c >= 'A' && c <= 'Z') {
          c += 'a' - 'A';
        }
        b[len++] = (byte) c;
      }
      if (len == 0) {
        return;
      }
      h = TOKEN_HASH.hashBytesToLong(b, 0, len);
    } else {
      String t = normalization.apply(text.substring(s, e));
      if (t.isEmpty()) {
        return;
      }
      int len = scratch.encode(t, 0, t.length());
      h = TOKEN_HASH.hashBytesToLong(scratch.bytes, 0, len);
    }
    add(h, s, e);
  }

  private void chars(String text, int s, int e, boolean ascii, boolean spaceBefore) {
    if (ascii) {
      for (int i = s; i < e; i++) {
        char c = text.charAt(i);
        if (normalization.punct() && ASCII_PUNCT[c]) {
          continue;
        }
        if (normalization.lower() && c >= 'A' && c <= 'Z') {
          c += 'a' - 'A';
        }
        if (spaceBefore) {
          add(' ', tokenEnd[count - 1], s);
          spaceBefore = false;
        }
        add(c, i, i + 1);
      }
      return;
    }
    String t = normalization.apply(text.substring(s, e));
    if (t.isEmpty()) {
      return;
    }
    if (spaceBefore) {
      add(' ', tokenEnd[count - 1], s);
    }
    int points = t.codePointCount(0, t.length());
    boolean oneToOne = points == text.codePointCount(s, e);
    int at = s;
    for (int j = 0; j < t.length(); ) {
      int c = t.codePointAt(j);
      j += Character.charCount(c);
      if (oneToOne) {
        int w = Character.charCount(text.codePointAt(at));
        add(c, at, at + w);
        at += w;
      } else {
        add(c, s, e); // normalisation reshaped the run: each of its tokens spans all of it
      }
    }
  }

  private void add(long v, int s, int e) {
    if (count == value.length) {
      value = Arrays.copyOf(value, 2 * count);
      tokenStart = Arrays.copyOf(tokenStart, 2 * count);
      tokenEnd = Arrays.copyOf(tokenEnd, 2 * count);
    }
    value[count] = v;
    tokenStart[count] = s;
    tokenEnd[count] = e;
    count++;
  }

  /**
   * Writes the fingerprints of the n-grams of the last {@link #tokenize}'s tokens into {@code dst[2
   * (slot + g)]} (hi) and {@code dst[2 (slot + g) + 1]} (lo), n-gram {@code g} being the one that
   * starts at token {@code g}; returns how many.
   */
  int fingerprints(long[] dst, int slot) {
    int grams = gramsOf(count);
    if (grams == 0) {
      return 0;
    }
    if (valueBytes.length < 8 * count) {
      valueBytes = new byte[Math.max(8 * count, 2 * valueBytes.length)];
    }
    for (int t = 0; t < count; t++) {
      LONG_LE.set(valueBytes, 8 * t, value[t]);
    }
    int width = Math.min(n, count);
    for (int g = 0; g < grams; g++) {
      fingerprinter.fingerprintInto(valueBytes, 8 * g, 8 * width, dst, slot + g);
    }
    return grams;
  }

  /** The tokens an n-gram starting at token {@code g} covers, its last one included. */
  int lastToken(int g) {
    return Math.min(count, g + n) - 1;
  }
}
