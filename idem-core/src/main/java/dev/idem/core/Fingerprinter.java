package dev.idem.core;

import com.dynatrace.hash4j.hashing.HashValue128;
import com.dynatrace.hash4j.hashing.Hasher128;
import java.nio.charset.StandardCharsets;
import java.util.Objects;

/**
 * Turns a key into its {@link Fingerprint}: normalise (optional), then hash with a seeded 128-bit
 * function. Immutable and thread-safe.
 *
 * <p>Everything that decides a key's fingerprint lives here (algorithm, seed, normaliser), and all
 * of it is written into snapshots, so a filter is always queried the way it was built.
 *
 * <pre>{@code
 * Fingerprinter fp = Fingerprinter.xxh3().withNormalizer(KeyNormalizer.parse("trim,lowercase"));
 * filter.put(fp.fingerprint("  Example.COM "));
 * }</pre>
 */
public final class Fingerprinter {

  private static final Fingerprinter DEFAULT =
      new Fingerprinter(HashAlgorithm.XXH3_128, 0L, KeyNormalizer.identity());

  private final HashAlgorithm algorithm;
  private final long seed;
  private final KeyNormalizer normalizer;
  private final Hasher128 hasher;

  /** XXH3-128 of raw bytes: {@link #fingerprintInto} hashes short keys with {@link Xxh3Short}. */
  private final boolean shortXxh3;

  private Fingerprinter(HashAlgorithm algorithm, long seed, KeyNormalizer normalizer) {
    this.algorithm = Objects.requireNonNull(algorithm, "algorithm");
    this.seed = seed;
    this.normalizer = Objects.requireNonNull(normalizer, "normalizer");
    this.hasher = algorithm.hasher(seed);
    this.shortXxh3 = algorithm == HashAlgorithm.XXH3_128 && normalizer.isIdentity();
  }

  /** XXH3-128 with seed 0 and no normalisation: the default everywhere in idem. */
  public static Fingerprinter xxh3() {
    return DEFAULT;
  }

  /** A fingerprinter with every part given explicitly (used when reading snapshots). */
  public static Fingerprinter of(HashAlgorithm algorithm, long seed, KeyNormalizer normalizer) {
    return new Fingerprinter(algorithm, seed, normalizer);
  }

  /** The same fingerprinter with another seed; different seeds give independent fingerprints. */
  public Fingerprinter withSeed(long newSeed) {
    return new Fingerprinter(algorithm, newSeed, normalizer);
  }

  /** The same fingerprinter with another normaliser. */
  public Fingerprinter withNormalizer(KeyNormalizer newNormalizer) {
    return new Fingerprinter(algorithm, seed, newNormalizer);
  }

  public HashAlgorithm algorithm() {
    return algorithm;
  }

  public long seed() {
    return seed;
  }

  public KeyNormalizer normalizer() {
    return normalizer;
  }

  /** The fingerprint of a key given as bytes. */
  public Fingerprint fingerprint(byte[] key) {
    return fingerprint(key, 0, key.length);
  }

  /**
   * The fingerprint of {@code key[offset, offset + length)}.
   *
   * @throws IllegalArgumentException when the normaliser works on text and the bytes are not valid
   *     UTF-8 (the message says where)
   */
  public Fingerprint fingerprint(byte[] key, int offset, int length) {
    HashValue128 h = hash(key, offset, length);
    return new Fingerprint(h.getMostSignificantBits(), h.getLeastSignificantBits());
  }

  /** The fingerprint of a key given as text; the text is hashed as UTF-8 after normalisation. */
  public Fingerprint fingerprint(CharSequence key) {
    byte[] bytes = normalizer.normalize(key.toString()).getBytes(StandardCharsets.UTF_8);
    HashValue128 h = hasher.hashBytesTo128Bits(bytes);
    return new Fingerprint(h.getMostSignificantBits(), h.getLeastSignificantBits());
  }

  /**
   * Hashes {@code key[offset, offset + length)} into {@code dst[2·slot]} (hi) and {@code dst[2·slot
   * + 1]} (lo): the layout the batch operations of {@code MembershipFilter} read.
   */
  public void fingerprintInto(byte[] key, int offset, int length, long[] dst, int slot) {
    if (shortXxh3 && length <= Xxh3Short.MAX_LENGTH) {
      // allocation-free: hash4j returns each hash as a new object (see Xxh3Short)
      Objects.checkFromIndexSize(offset, length, key.length);
      Xxh3Short.hash(key, offset, length, seed, dst, slot);
      return;
    }
    HashValue128 h = hash(key, offset, length);
    dst[2 * slot] = h.getMostSignificantBits();
    dst[2 * slot + 1] = h.getLeastSignificantBits();
  }

  private HashValue128 hash(byte[] key, int offset, int length) {
    if (normalizer.isIdentity()) {
      return hasher.hashBytesTo128Bits(key, offset, length);
    }
    return hasher.hashBytesTo128Bits(normalizer.normalize(key, offset, length));
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof Fingerprinter f
        && f.algorithm == algorithm
        && f.seed == seed
        && f.normalizer.equals(normalizer);
  }

  @Override
  public int hashCode() {
    return Objects.hash(algorithm, seed, normalizer);
  }

  @Override
  public String toString() {
    return algorithm.displayName() + " seed=" + seed + " normalizer=" + normalizer.spec();
  }
}
