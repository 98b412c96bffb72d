package dev.idem.engine.neardup;

import com.dynatrace.hash4j.hashing.HashStream64;
import com.dynatrace.hash4j.hashing.Hashing;
import java.util.Arrays;

/**
 * Cuts a document into its set of shingles (n-grams of words or characters) and gives each shingle
 * a 64-bit hash: the set is returned as the sorted, distinct hashes. Two shingles are confused only
 * when their XXH3 hashes collide (about m²/2⁶⁵ for m distinct shingles in a corpus), which changes
 * a Jaccard similarity by at most one shingle.
 *
 * <p>A shingle's hash is the hash of its tokens' hashes in order, so a token is hashed once however
 * many shingles contain it, and ("ab", "c") and ("a", "bc") differ.
 *
 * <p><b>Short documents.</b> A document with at least one token but fewer than n is one shingle of
 * all its tokens, so that it can still match a document that is the same short text; a document
 * with no token at all (empty, or only white space and removed punctuation) has no shingle and is
 * never a near-duplicate of anything (exact duplicates are caught before shingling).
 *
 * <p>Not thread-safe: it reuses its buffers.
 */
final class Shingler {

  private final Tokenizer tokenizer;
  private final int n;
  private final TextNormalization normalization;
  private final HashStream64 stream = Hashing.xxh3_64().hashStream();
  private long[] tokens = new long[64];
  private long[] shingles = new long[64];

  Shingler(Tokenizer tokenizer, int n, TextNormalization normalization) {
    if (n < 1) {
      throw new IllegalArgumentException("--ngram must be at least 1, got " + n);
    }
    this.tokenizer = tokenizer;
    this.n = n;
    this.normalization = normalization;
  }

  /** The sorted distinct shingle hashes of {@code text}; empty when it has no token. */
  long[] shingles(String text) {
    String s = normalization.apply(text);
    int count = tokenizer == Tokenizer.WORDS ? wordTokens(s) : charTokens(s);
    if (count == 0) {
      return new long[0];
    }
    int shingleCount = Math.max(1, count - n + 1);
    if (shingles.length < shingleCount) {
      shingles = new long[Math.max(shingleCount, 2 * shingles.length)];
    }
    int width = Math.min(n, count);
    for (int i = 0; i < shingleCount; i++) {
      stream.reset();
      for (int j = 0; j < width; j++) {
        stream.putLong(tokens[i + j]);
      }
      shingles[i] = stream.getAsLong();
    }
    long[] set = Arrays.copyOf(shingles, shingleCount);
    Arrays.sort(set);
    return distinct(set);
  }

  /** The sorted array without repeats (a copy when there are any). */
  static long[] distinct(long[] sorted) {
    if (sorted.length == 0) {
      return sorted;
    }
    int w = 1;
    for (int i = 1; i < sorted.length; i++) {
      if (sorted[i] != sorted[w - 1]) {
        sorted[w++] = sorted[i];
      }
    }
    return w == sorted.length ? sorted : Arrays.copyOf(sorted, w);
  }

  private int wordTokens(String s) {
    int count = 0;
    int i = 0;
    while (i < s.length()) {
      int c = s.codePointAt(i);
      if (isSpace(c)) {
        i += Character.charCount(c);
        continue;
      }
      stream.reset();
      while (i < s.length()) {
        c = s.codePointAt(i);
        if (isSpace(c)) {
          break;
        }
        stream.putInt(c);
        i += Character.charCount(c);
      }
      count = addToken(count, stream.getAsLong());
    }
    return count;
  }

  private int charTokens(String s) {
    int count = 0;
    boolean space = true; // leading white space is dropped
    for (int i = 0; i < s.length(); ) {
      int c = s.codePointAt(i);
      i += Character.charCount(c);
      if (isSpace(c)) {
        space = true;
        continue;
      }
      if (space && count > 0) {
        count = addToken(count, ' ');
      }
      space = false;
      count = addToken(count, c);
    }
    return count;
  }

  private int addToken(int count, long token) {
    if (count == tokens.length) {
      tokens = Arrays.copyOf(tokens, 2 * count);
    }
    tokens[count] = token;
    return count + 1;
  }

  private static boolean isSpace(int c) {
    return Character.isWhitespace(c) || Character.isSpaceChar(c);
  }
}
