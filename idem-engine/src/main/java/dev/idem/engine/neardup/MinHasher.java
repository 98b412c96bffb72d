package dev.idem.engine.neardup;

import java.util.Arrays;

/**
 * MinHash signatures: for each of {@code numPerm} hash functions hᵢ, the least hᵢ(x) over the
 * document's shingle hashes x. For two sets A and B, P(min hᵢ(A) = min hᵢ(B)) = J(A, B), their
 * Jaccard similarity, when hᵢ acts like a random permutation of the shingles; the fraction of equal
 * components is then an unbiased estimate of J, binomial with {@code numPerm} trials.
 *
 * <p><b>Why our own permutations rather than hash4j's {@code SimilarityHashing} MinHash.</b> hash4j
 * keeps only a few bits of each component and packs them into a byte array, which is right for
 * estimating similarity from small sketches but not for LSH: a band must be made of whole, full
 * width components, read one row at a time, so that two documents share a band bucket exactly when
 * they agree on all R of its minima; with truncated components, unrelated documents agree by chance
 * on every b-bit row with probability 2⁻ᵇ and the S-curve no longer holds. Here hᵢ(x) = mix(x ⊕
 * seedᵢ), where mix is the 64-bit finalizer of SplitMix64 (Stafford's variant 13) and the seeds are
 * successive SplitMix64 outputs. mix is a bijection of the 64-bit words, so each hᵢ is a true
 * permutation of the shingle-hash space (no two shingles collide inside one row), and its avalanche
 * makes the rows behave as independent random permutations, which the statistical tests ({@code
 * MinHashStatisticsTest}) check against the binomial law. The shingle hashes themselves come from
 * hash4j's XXH3 ({@link Shingler}). It costs one multiply-xorshift chain per shingle and row, with
 * no allocation: {@link #signature} fills the caller's array.
 */
final class MinHasher {

  private final long[] seeds;

  /**
   * @param numPerm the signature's length
   * @param seed chooses the family of permutations; one job uses one seed for every document
   */
  MinHasher(int numPerm, long seed) {
    if (numPerm < 1) {
      throw new IllegalArgumentException("--num-perm must be at least 1, got " + numPerm);
    }
    seeds = new long[numPerm];
    long state = seed;
    for (int i = 0; i < numPerm; i++) {
      state += 0x9E3779B97F4A7C15L;
      seeds[i] = mix(state);
    }
  }

  int numPerm() {
    return seeds.length;
  }

  /**
   * Writes the signature of a shingle set into {@code out[0..numPerm)}; every component is {@link
   * Long#MAX_VALUE} for an empty set. The loop is over shingles outside and rows inside, so the
   * signature stays in cache.
   */
  void signature(long[] shingles, long[] out) {
    int rows = seeds.length;
    Arrays.fill(out, 0, rows, Long.MAX_VALUE);
    for (long x : shingles) {
      for (int i = 0; i < rows; i++) {
        long h = mix(x ^ seeds[i]);
        if (h < out[i]) {
          out[i] = h;
        }
      }
    }
  }

  /** SplitMix64's finalizer: a bijection of the 64-bit words with full avalanche. */
  static long mix(long z) {
    z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
    z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
    return z ^ (z >>> 31);
  }
}
