package dev.idem.cli;

import java.io.IOException;
import java.io.InputStream;
import java.net.JarURLConnection;
import java.net.URL;
import java.net.URLConnection;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.List;
import java.util.Locale;
import java.util.zip.ZipEntry;
import org.rocksdb.RocksDB;
import org.rocksdb.util.Environment;

/**
 * Loads RocksDB's JNI library from a per-user cache instead of letting rocksdbjni unpack its 15 MB
 * library into the temp directory on every start (a third of a second of every resume).
 *
 * <p>The cache is {@code $XDG_CACHE_HOME/idem/native/rocksdbjni-<crc>/} (or {@code ~/.cache/...}),
 * named by the CRC-32 that the jar's directory records for the library, so a jar with another
 * RocksDB gets its own copy and a cached one is never reused wrongly. The copy is written to a
 * temporary file and renamed, so concurrent first runs cannot see half a file. Whatever fails here
 * falls back to rocksdbjni's own loader: this is a start-up optimisation, never a reason to fail.
 */
final class RocksDbLibrary {

  private RocksDbLibrary() {}

  /** Starts loading in the background; RocksDB's own loader waits for it if asked meanwhile. */
  static void preload() {
    Thread t = new Thread(RocksDbLibrary::load, "idem-rocksdb-load");
    t.setDaemon(true);
    t.start();
  }

  static void load() {
    try {
      Path dir = cached(cacheRoot());
      if (dir != null) {
        RocksDB.loadLibrary(List.of(dir.toString()));
        return;
      }
    } catch (IOException | RuntimeException | UnsatisfiedLinkError e) {
      // fall through to the loader that unpacks into the temp directory
    }
    RocksDB.loadLibrary();
  }

  /**
   * The directory under {@code root} that holds this jar's library, filled if needed; null when the
   * library is not in a jar (then rocksdbjni's loader has to find it).
   */
  static Path cached(Path root) throws IOException {
    String name = Environment.getJniLibraryFileName("rocksdb");
    // RocksDB.loadLibrary(paths) looks for this name (sic: "librocksdbjnijni-…" in 10.x); if a
    // release renames it, loading from the cache fails and the fallback below still works
    String cachedName = Environment.getJniLibraryFileName("rocksdbjni");
    URL url = RocksDB.class.getClassLoader().getResource(name);
    if (url == null) {
      return null;
    }
    URLConnection c = url.openConnection();
    if (!(c instanceof JarURLConnection jar)) {
      return null;
    }
    jar.setUseCaches(false);
    ZipEntry entry = jar.getJarEntry();
    if (entry == null || entry.getCrc() < 0 || entry.getSize() <= 0) {
      return null;
    }
    Path dir = root.resolve(String.format(Locale.ROOT, "native/rocksdbjni-%08x", entry.getCrc()));
    Path lib = dir.resolve(cachedName);
    if (Files.isRegularFile(lib) && Files.size(lib) == entry.getSize()) {
      return dir;
    }
    Files.createDirectories(dir);
    Path tmp = Files.createTempFile(dir, "." + name + ".", ".tmp");
    try (InputStream in = jar.getInputStream()) {
      Files.copy(in, tmp, StandardCopyOption.REPLACE_EXISTING);
      Files.move(tmp, lib, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    } finally {
      Files.deleteIfExists(tmp);
    }
    return dir;
  }

  private static Path cacheRoot() {
    String xdg = System.getenv("XDG_CACHE_HOME");
    if (xdg != null && !xdg.isBlank()) {
      return Path.of(xdg, "idem");
    }
    return Path.of(System.getProperty("user.home"), ".cache", "idem");
  }
}
