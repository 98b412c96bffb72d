package dev.idem.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * What GNU time ({@code /usr/bin/time}) accounts for one child process and the children it waited
 * for: peak resident set size and CPU time (user + system, all threads). Cores used over a run is
 * CPU time over wall time.
 */
record GnuTime(long peakRssKiB, double cpuSeconds) {

  /** Nothing known: the child was killed, or time wrote nothing readable. */
  static final GnuTime UNKNOWN = new GnuTime(-1, -1);

  /** The command prefix that runs a child under time, its accounting written to {@code file}. */
  static List<String> prefix(Path file) {
    return List.of("/usr/bin/time", "-f", "%M %U %S", "-o", file.toString());
  }

  /**
   * Reads what {@link #prefix} wrote: the last line (before it, time may say "Command exited with
   * non-zero status N"), or {@link #UNKNOWN}.
   */
  static GnuTime read(Path file) throws IOException {
    List<String> lines = Files.exists(file) ? Files.readAllLines(file) : List.of();
    for (int i = lines.size() - 1; i >= 0; i--) {
      String[] f = lines.get(i).trim().split("\\s+");
      if (f.length == 3) {
        try {
          return new GnuTime(
              Long.parseLong(f[0]), Double.parseDouble(f[1]) + Double.parseDouble(f[2]));
        } catch (NumberFormatException e) {
          return UNKNOWN;
        }
      }
    }
    return UNKNOWN;
  }
}
