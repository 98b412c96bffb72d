package dev.idem.cli;

import java.nio.file.Files;
import java.nio.file.Path;

/** Whether standard error is a terminal, which decides if progress is drawn. */
final class Terminal {

  private Terminal() {}

  static boolean stderrIsTerminal() {
    if (System.getenv("CI") != null) {
      return false;
    }
    try {
      // Linux: what file descriptor 2 points at; a terminal is /dev/pts/N or /dev/ttyN
      String target = Files.readSymbolicLink(Path.of("/proc/self/fd/2")).toString();
      return target.startsWith("/dev/pts/") || target.startsWith("/dev/tty");
    } catch (Exception e) {
      return System.console() != null;
    }
  }
}
