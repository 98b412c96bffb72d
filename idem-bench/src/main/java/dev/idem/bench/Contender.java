package dev.idem.bench;

import com.google.common.hash.Funnel;
import com.google.common.hash.PrimitiveSink;
import dev.idem.core.Fingerprint;
import dev.idem.core.Fingerprinter;
import dev.idem.core.filter.AbstractBloomFilter;
import dev.idem.core.filter.FilterSnapshot;
import dev.idem.core.filter.FilterType;
import dev.idem.core.filter.Filters;
import dev.idem.core.filter.MembershipFilter;
import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import org.apache.commons.codec.digest.MurmurHash3;
import org.apache.commons.collections4.bloomfilter.BitMapExtractor;
import org.apache.commons.collections4.bloomfilter.EnhancedDoubleHasher;
import org.apache.commons.collections4.bloomfilter.Shape;
import org.apache.commons.collections4.bloomfilter.SimpleBloomFilter;

/**
 * One filter under test, fed raw key bytes and doing its own hashing the way its library intends.
 * Each benchmark fork creates exactly one kind, so the JIT sees a single implementation at every
 * call site and no contender pays for megamorphic dispatch.
 */
public abstract class Contender {

  /** Names accepted by {@link #create}, in table order. */
  public static final String[] NAMES = {"bloom", "blocked", "partitioned", "guava", "commons"};

  /** Adds a key; returns what the library's put returns (used only to defeat dead-code removal). */
  public abstract boolean put(byte[] data, int offset, int length);

  public abstract boolean mightContain(byte[] data, int offset, int length);

  /** Bits of memory the filter's bit array occupies. */
  public abstract long bits();

  /** The false-positive rate the library itself predicts with {@code n} keys inserted. */
  public abstract double expectedFpp(long n);

  /** The idem filter inside, for the batch benchmarks; only idem's contenders have one. */
  public MembershipFilter idem() {
    throw new UnsupportedOperationException(getClass().getSimpleName() + " is not an idem filter");
  }

  /** Writes the filter to a file that {@link #load} reads back (see {@link FilterCache}). */
  public abstract void save(Path file) throws IOException;

  /** A contender created for {@code n} keys at rate {@code p}, with the bits saved in file. */
  public static Contender load(String name, long n, double p, Path file) throws IOException {
    return switch (name.toLowerCase(Locale.ROOT)) {
      case "guava" -> new Guava(file);
      case "commons" -> new Commons(n, p, file);
      default -> new Idem(FilterSnapshot.read(file).filter());
    };
  }

  /** A new, empty contender sized for {@code n} keys at rate {@code p}. */
  public static Contender create(String name, long n, double p) {
    return switch (name.toLowerCase(Locale.ROOT)) {
      case "guava" -> new Guava(n, p);
      case "commons" -> new Commons(n, p);
      default -> new Idem(Filters.create(FilterType.byName(name), n, p));
    };
  }

  /** idem: XXH3-128 fingerprint, then the filter's own position scheme. */
  static final class Idem extends Contender {
    private final Fingerprinter fingerprinter = Fingerprinter.xxh3();
    final MembershipFilter filter;

    Idem(MembershipFilter filter) {
      this.filter = filter;
    }

    @Override
    public boolean put(byte[] data, int offset, int length) {
      Fingerprint f = fingerprinter.fingerprint(data, offset, length);
      return filter.put(f.hi(), f.lo());
    }

    @Override
    public boolean mightContain(byte[] data, int offset, int length) {
      Fingerprint f = fingerprinter.fingerprint(data, offset, length);
      return filter.mightContain(f.hi(), f.lo());
    }

    @Override
    public long bits() {
      return filter.bitSize();
    }

    @Override
    public MembershipFilter idem() {
      return filter;
    }

    @Override
    public double expectedFpp(long n) {
      // The layout's own formula at the true n; expectedFpp() would use approximateCount(),
      // which misses the keys that arrived as false positives.
      return filter instanceof AbstractBloomFilter b
          ? b.falsePositiveRate(n)
          : filter.expectedFpp();
    }

    @Override
    public void save(Path file) throws IOException {
      FilterCache.writeIdem(file, filter);
    }
  }

  /**
   * Guava: Murmur3-128 through a funnel. The funnel reads a reusable slice of the arena, so Guava
   * hashes the same bytes as everyone else without a {@code byte[]} copy per key.
   */
  static final class Guava extends Contender {
    private final com.google.common.hash.BloomFilter<Slice> filter;
    private final Slice slice = new Slice();

    Guava(long n, double p) {
      filter = com.google.common.hash.BloomFilter.create(SliceFunnel.INSTANCE, n, p);
    }

    Guava(Path file) throws IOException {
      try (InputStream in = new BufferedInputStream(Files.newInputStream(file), 1 << 20)) {
        filter = com.google.common.hash.BloomFilter.readFrom(in, SliceFunnel.INSTANCE);
      }
    }

    @Override
    public void save(Path file) throws IOException {
      try (OutputStream out = new BufferedOutputStream(Files.newOutputStream(file), 1 << 20)) {
        filter.writeTo(out);
      }
    }

    @Override
    public boolean put(byte[] data, int offset, int length) {
      return filter.put(slice.set(data, offset, length));
    }

    @Override
    public boolean mightContain(byte[] data, int offset, int length) {
      return filter.mightContain(slice.set(data, offset, length));
    }

    @Override
    public long bits() {
      // serializedSize = strategy byte + k byte + int word count + the words; bitSize() is hidden
      return (filter.serializedSize() - 6) * Byte.SIZE;
    }

    @Override
    public double expectedFpp(long n) {
      return filter.expectedFpp(); // Guava's estimate from the bits actually set
    }
  }

  /** A view of one key in the arena; Guava never keeps the objects it is given. */
  static final class Slice {
    byte[] data;
    int offset;
    int length;

    Slice set(byte[] d, int o, int l) {
      data = d;
      offset = o;
      length = l;
      return this;
    }
  }

  enum SliceFunnel implements Funnel<Slice> {
    INSTANCE;

    @Override
    public void funnel(Slice s, PrimitiveSink into) {
      into.putBytes(s.data, s.offset, s.length);
    }
  }

  /**
   * commons-collections4: {@code Shape.fromNP}, a {@link SimpleBloomFilter}, and per key an {@link
   * EnhancedDoubleHasher} seeded with the two halves of commons-codec's MurmurHash3 x64 128-bit
   * hash, as the library's documentation recommends.
   */
  static final class Commons extends Contender {
    private final Shape shape;
    private final SimpleBloomFilter filter;

    Commons(long n, double p) {
      shape = Shape.fromNP(Math.toIntExact(n), p);
      filter = new SimpleBloomFilter(shape);
    }

    Commons(long n, double p, Path file) throws IOException {
      this(n, p);
      try (DataInputStream in =
          new DataInputStream(new BufferedInputStream(Files.newInputStream(file), 1 << 20))) {
        long[] words = new long[in.readInt()];
        for (int i = 0; i < words.length; i++) {
          words[i] = in.readLong();
        }
        filter.merge(BitMapExtractor.fromBitMapArray(words));
      }
    }

    @Override
    public void save(Path file) throws IOException {
      long[] words = filter.asBitMapArray();
      try (DataOutputStream out =
          new DataOutputStream(new BufferedOutputStream(Files.newOutputStream(file), 1 << 20))) {
        out.writeInt(words.length);
        for (long w : words) {
          out.writeLong(w);
        }
      }
    }

    @Override
    public boolean put(byte[] data, int offset, int length) {
      long[] h = MurmurHash3.hash128x64(data, offset, length, 0);
      return filter.merge(new EnhancedDoubleHasher(h[0], h[1]));
    }

    @Override
    public boolean mightContain(byte[] data, int offset, int length) {
      long[] h = MurmurHash3.hash128x64(data, offset, length, 0);
      return filter.contains(new EnhancedDoubleHasher(h[0], h[1]));
    }

    @Override
    public long bits() {
      return (long) shape.getNumberOfBits();
    }

    @Override
    public double expectedFpp(long n) {
      return shape.getProbability(Math.toIntExact(n));
    }
  }
}
