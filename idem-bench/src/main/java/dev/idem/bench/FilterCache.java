package dev.idem.bench;

import dev.idem.core.Fingerprinter;
import dev.idem.core.filter.FilterSnapshot;
import dev.idem.core.filter.MembershipFilter;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;

/**
 * Filled filters handed from the insert fork of a (contender, n) to its query forks. At n = 100 M
 * one fill costs up to a minute, and JMH gives every benchmark method its own JVM, so without this
 * each query fork would repeat the fill. The loaded filter holds exactly the bits a fresh fill of
 * the same keys would set. {@link BenchMain} deletes the directory when the run ends.
 */
final class FilterCache {

  /** System property naming the cache directory; no caching when unset. */
  static final String DIR_PROPERTY = "idem.bench.cache";

  private FilterCache() {}

  /** Saves a filter holding keys 0 … n-1 unless one is already saved. */
  static void save(Contender filter, String contender, long n) throws IOException {
    Path file = file(contender, n);
    if (file == null || Files.exists(file)) {
      return;
    }
    Path tmp = file.resolveSibling(file.getFileName() + ".tmp");
    filter.save(tmp);
    Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
  }

  /** The saved filter holding keys 0 … n-1, or null when there is none. */
  static Contender load(String contender, long n) throws IOException {
    Path file = file(contender, n);
    return file == null || !Files.exists(file)
        ? null
        : Contender.load(contender, n, FilterBenchmark.FPP, file);
  }

  /** As {@link #load} for idem's own filters, which the fingerprint benchmarks use directly. */
  static MembershipFilter loadIdem(String contender, long n) throws IOException {
    Path file = file(contender, n);
    return file == null || !Files.exists(file) ? null : FilterSnapshot.read(file).filter();
  }

  /** idem's filters are cached in their own snapshot format. */
  static void writeIdem(Path file, MembershipFilter filter) throws IOException {
    FilterSnapshot.write(file, filter, Fingerprinter.xxh3());
  }

  private static Path file(String contender, long n) {
    String dir = System.getProperty(DIR_PROPERTY);
    return dir == null || dir.isEmpty() ? null : Path.of(dir, contender + "-" + n + ".filter");
  }
}
