package dev.idem.engine.output;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * Which process holds the lock on a file, for an error message: Linux lists every file lock in
 * {@code /proc/locks} as {@code "1: POSIX ADVISORY WRITE <pid> <major>:<minor>:<inode> 0 EOF"}.
 * Elsewhere, or when the file cannot be matched, the holder is unknown.
 */
final class LockHolder {

  private static final Path LOCKS = Path.of("/proc/locks");

  private LockHolder() {}

  /** {@code "pid 1234"}, or {@code null} when it cannot be told. */
  static String of(Path file) {
    try {
      long inode = ((Number) Files.getAttribute(file, "unix:ino")).longValue();
      long dev = ((Number) Files.getAttribute(file, "unix:dev")).longValue();
      // glibc's encoding of st_dev; /proc/locks prints major and minor in hex
      long major = ((dev >>> 8) & 0xfff) | ((dev >>> 32) & ~0xfffL);
      long minor = (dev & 0xff) | ((dev >>> 12) & ~0xffL);
      String id = String.format(java.util.Locale.ROOT, "%02x:%02x:%d", major, minor, inode);
      List<String> lines = Files.readAllLines(LOCKS);
      for (String line : lines) {
        String[] f = line.strip().split("\\s+");
        // "->" marks a process waiting for the lock, not holding it
        if (f.length >= 6 && !f[1].equals("->") && f[5].equals(id)) {
          return "pid " + f[4];
        }
      }
    } catch (IOException | UnsupportedOperationException | IllegalArgumentException e) {
      // not Linux, or no unix attributes: say nothing rather than something wrong
    }
    return null;
  }
}
